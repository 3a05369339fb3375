/// ISO-8601 UTC timestamps with milliseconds (`2026-11-22T08:15:02.123Z`), as every MQTT payload
/// carries them (docs/MQTT.md).
///
/// Written by hand (Howard Hinnant's days-to-civil algorithm) so the core needs neither Foundation's
/// ICU date formatter nor a calendar: an `Instant` in Unix seconds is all it takes.
public enum ISO8601Timestamp {
    /// Earliest and latest instants that still format as a four-digit year (0000-01-01 … 9999-12-31).
    static let earliestMilliseconds: Int64 = -62_167_219_200_000
    static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// `instant` (Unix seconds) as `YYYY-MM-DDTHH:MM:SS.mmmZ`, rounded to the nearest millisecond.
    ///
    /// Never traps: a non-finite instant formats as the Unix epoch, and instants outside years
    /// 0000…9999 are clamped to that range.
    public static func string(from instant: Instant) -> String {
        string(fromUnixMilliseconds: clampedMilliseconds(instant))
    }

    /// `instant` in whole milliseconds, rounded, clamped to years 0000…9999; 0 when not finite.
    static func clampedMilliseconds(_ instant: Instant) -> Int64 {
        let scaled = instant.seconds * 1000
        let milliseconds: Int64
        if !scaled.isFinite {
            milliseconds = 0
        } else if scaled <= Double(earliestMilliseconds) {
            milliseconds = earliestMilliseconds
        } else if scaled >= Double(latestMilliseconds) {
            milliseconds = latestMilliseconds
        } else {
            // Rounded, not truncated: 1763799302.123 is 1763799302122.9998 ms in binary.
            milliseconds = Int64(scaled.rounded())
        }
        return milliseconds
    }

    /// Milliseconds since 1970-01-01T00:00:00Z, formatted; clamped to years 0000…9999.
    public static func string(fromUnixMilliseconds value: Int64) -> String {
        let clamped = min(max(value, earliestMilliseconds), latestMilliseconds)
        let (days, millisecondOfDay) = floorDivide(clamped, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        let millisecond = millisecondOfDay % 1000

        // 24 ASCII bytes written in place: a location and its room's entry carry one each, and
        // a `String` per field and separator was a tenth of a measurement's work (issue 38).
        // A year is 0…9999 after the clamp, every field fits its digits.
        return String(unsafeUninitializedCapacity: 24) { out in
            func put(_ value: Int64, digits: Int, at offset: Int) {
                var rest = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    out[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, digits: 4, at: 0)
            out[4] = UInt8(ascii: "-")
            put(month, digits: 2, at: 5)
            out[7] = UInt8(ascii: "-")
            put(day, digits: 2, at: 8)
            out[10] = UInt8(ascii: "T")
            put(hour, digits: 2, at: 11)
            out[13] = UInt8(ascii: ":")
            put(minute, digits: 2, at: 14)
            out[16] = UInt8(ascii: ":")
            put(second, digits: 2, at: 17)
            out[19] = UInt8(ascii: ".")
            put(millisecond, digits: 3, at: 20)
            out[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Year, month (1…12) and day (1…31) of the proleptic Gregorian calendar for `days` since
    /// 1970-01-01 (http://howardhinnant.github.io/date_algorithms.html#civil_from_days).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097  // 0…146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365  // 0…399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0…365, from March 1
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // 0…11
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Quotient rounded toward negative infinity, and a non-negative remainder.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}
