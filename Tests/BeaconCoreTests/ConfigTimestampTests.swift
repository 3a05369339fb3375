import Testing
@testable import BeaconCore

@Suite struct ConfigTimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_795_335_302.123, "2026-11-22T08:15:02.123Z"),
        (951_782_400, "2000-02-29T00:00:00.000Z"),  // leap day of a year divisible by 400
        (1_709_251_199.999, "2024-02-29T23:59:59.999Z"),  // last millisecond of a leap day
        (-2_203_934_400, "1900-02-28T12:00:00.000Z"),  // 1900 is not a leap year…
        (-2_203_891_200, "1900-03-01T00:00:00.000Z"),  // …so 28 February is followed by 1 March
        (4_107_542_400, "2100-03-01T00:00:00.000Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
        (2_147_483_648, "2038-01-19T03:14:08.000Z"),  // past 32-bit time_t
        (1_795_335_302.9996, "2026-11-22T08:15:03.000Z"),  // rounds to the nearest millisecond
    ])
    func knownDates(seconds: Double, expected: String) {
        #expect(ISO8601Timestamp.string(from: Instant(seconds: seconds)) == expected)
    }

    /// The formatting written in place gives what zero-padded fields of `civil(fromDays:)` give,
    /// over the whole range and at its ends.
    @Test func formattingMatchesTheCalendarFields() {
        func reference(_ milliseconds: Int64) -> String {
            let (days, ofDay) = ISO8601Timestamp.floorDivide(milliseconds, 86_400_000)
            let (year, month, day) = ISO8601Timestamp.civil(fromDays: days)
            func padded(_ value: Int64, _ digits: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, digits - text.count)) + text
            }
            return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(ofDay / 3_600_000, 2)):"
                + "\(padded(ofDay / 60_000 % 60, 2)):\(padded(ofDay / 1000 % 60, 2)).\(padded(ofDay % 1000, 3))Z"
        }
        var generator = SplitMix64(seed: 38)
        let span = UInt64(ISO8601Timestamp.latestMilliseconds - ISO8601Timestamp.earliestMilliseconds)
        var values: [Int64] = [ISO8601Timestamp.earliestMilliseconds, ISO8601Timestamp.latestMilliseconds, 0, -1, 1, 1_763_799_302_123]
        for _ in 0..<20_000 { values.append(ISO8601Timestamp.earliestMilliseconds + Int64(generator.next() % span)) }
        for value in values {
            #expect(ISO8601Timestamp.string(fromUnixMilliseconds: value) == reference(value))
        }
    }

    @Test func neverTraps() {
        #expect(ISO8601Timestamp.string(from: Instant(seconds: .nan)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601Timestamp.string(from: Instant(seconds: .infinity)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601Timestamp.string(from: Instant(seconds: 1e300)) == "9999-12-31T23:59:59.999Z")
        #expect(ISO8601Timestamp.string(from: Instant(seconds: -1e300)) == "0000-01-01T00:00:00.000Z")
        #expect(ISO8601Timestamp.string(fromUnixMilliseconds: .min) == "0000-01-01T00:00:00.000Z")
    }

    @Test func everyDayOfFourCenturiesIsOneAfterTheOther() {
        // Walk 146,097 days (one Gregorian cycle) from 1970 and check the calendar never skips.
        var previous = ISO8601Timestamp.civil(fromDays: -1)
        for day in Int64(0)..<146_097 {
            let date = ISO8601Timestamp.civil(fromDays: day)
            if date.day != 1 {
                #expect(date.year == previous.year && date.month == previous.month && date.day == previous.day + 1)
            } else {
                #expect(previous.day >= 28)
                #expect(date.month == previous.month % 12 + 1)
            }
            if date.month == 2, date.day == 29 {
                let leap = (date.year % 4 == 0 && date.year % 100 != 0) || date.year % 400 == 0
                #expect(leap)
            }
            previous = date
        }
    }
}
