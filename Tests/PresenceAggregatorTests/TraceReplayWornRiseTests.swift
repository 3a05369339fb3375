import BeaconCore
import PresenceAggregator
import RoomDecisions
import Testing

/// `presence-aggregator replay` with a known beacon marked worn (issue 40, sixth round): the nodes'
/// tracks in the replay report the tag's rises, as live agents would, and the worn profile's rise
/// switch follows a walk into the hall at once.
@Suite struct TraceReplayWornRiseTests {
    /// A wristband heard about twice a second by the kitchen's and the hall's receivers: 30 s at the
    /// kitchen (−62 / −80 dBm, ±2 dB), then in the hall (−80 / −62): the hall rises as the kitchen falls.
    static let trace: String = {
        var lines = ["time,node,room,beacon,rssi,measuredPower"]
        let wobble = [0, 2, -1, 1, -2, 0, 1, -1, 2, -2]
        var t = 0.0
        var i = 0
        while t < 50 {
            let inHall = t >= 30
            let kitchen = (inHall ? -80 : -62) + wobble[i % wobble.count]
            let hall = (inHall ? -62 : -80) + wobble[(i + 3) % wobble.count]
            lines.append(String(format: "%.2f,k1,kitchen,band,%d,-59", t, kitchen))
            lines.append(String(format: "%.2f,h1,hall,band,%d,-59", t + 0.13, hall))
            t += i % 2 == 0 ? 0.45 : 0.5
            i += 1
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    /// When the replay first decides the band in the hall, seconds after the walk (30 s).
    func switchDelay(worn: Bool, tracking: TrackingParameters = .default, rule: SwitchingRule) throws -> Double? {
        let path = try temporaryFile(Self.trace)
        var rows: [String] = []
        try TraceReplayRunner.run(
            path: path, output: .decisions, tracking: tracking, wornRule: rule,
            knownBeacons: worn ? [KnownBeacon(beacon: "band", worn: true)] : []
        ) { rows.append($0) }
        let hall = rows.dropFirst().map { $0.split(separator: ",").map(String.init) }.first { $0[2] == "hall" }
        return hall.flatMap { Double($0[0]) }.map { $0 - 30 }
    }

    @Test("marked worn, the rise reports switch within a second; without them the worn profile waits for its fast clock or dwell")
    func wornRiseSwitchesAtOnce() throws {
        var rule = SwitchingRule.worn
        rule.riseLead = 4
        let withRise = try #require(try switchDelay(worn: true, rule: rule))
        #expect(withRise <= 1)
        // The same rule, the agents' rise reports off: no report, so no rise switch.
        var silent = TrackingParameters.default
        silent.rise.rise = 0
        // (The nodes then publish the worn band by its level, a few measurements per move, which
        // this profile's fast clock was not made for: later, or not within the trace.)
        let withoutReports = try switchDelay(worn: true, tracking: silent, rule: rule)
        #expect(withoutReports.map { $0 > withRise } ?? true)
        // Not marked worn: the site's rule decides it, and no track reports a rise.
        #expect(try switchDelay(worn: false, rule: rule) != nil)
    }

    /// `--output measurements` and `--output published` carry the nodes' rise reports, and a replay
    /// of the published trace feeds them to the decider as the nodes' own tracks did: the band
    /// enters the hall at the same time. Without the rise columns it enters later (no rise switch).
    @Test func theReplaysOutputsCarryTheRiseReports() throws {
        let path = try temporaryFile(Self.trace)
        let band = [KnownBeacon(beacon: "band", worn: true)]
        func run(_ path: String, _ output: TraceReplayRunner.Output) throws -> [[String]] {
            var rows: [String] = []
            try TraceReplayRunner.run(path: path, output: output, knownBeacons: band) { rows.append($0) }
            return rows.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        }
        let measurements = try run(path, .measurements)
        #expect(measurements[0].suffix(2) == ["rise", "riseRssi"])
        let risen = measurements.dropFirst().filter { !$0[9].isEmpty }
        #expect(!risen.isEmpty && risen.allSatisfy { Double($0[9])! >= 6 && Double($0[10]) != nil })

        let published = try run(path, .published)
        #expect(published[0].joined(separator: ",") == ReplayCSV.recordHeader)
        let reports = published.dropFirst().filter { !$0[11].isEmpty }
        #expect(reports.count == risen.count)
        #expect(published.dropFirst().allSatisfy { $0[4] == "-127" || Double($0[9]) != nil })
        let publishedPath = try temporaryFile(published.map { $0.joined(separator: ",") }.joined(separator: "\n"))
        func hall(_ rows: [[String]]) -> String? { rows.dropFirst().first { $0[2] == "hall" }?[0] }
        let fromTrace = try #require(hall(try run(path, .decisions)))
        #expect(hall(try run(publishedPath, .decisions)) == fromTrace)

        let stripped = try temporaryFile(published.map { $0.dropLast(2).joined(separator: ",") }.joined(separator: "\n"))
        let withoutRises = try #require(hall(try run(stripped, .decisions)))
        #expect(Double(withoutRises)! > Double(fromTrace)!)
    }
}
