import Foundation

/// What one fleet run measured, and how the bench reads the aggregator's log and its locations;
/// apart from the run itself (`FleetLoadTest.run`) so that each file stays readable.
extension FleetLoadTest {
    struct Result {
        var messagesPublished = 0
        var moveMessages = 0
        var seconds = 0.0
        var messagesPerSecond: Double { seconds > 0 ? Double(messagesPublished) / seconds : 0 }
        var lagsMs: [Double] = []
        /// Each decided move's lag split at the aggregator's decision (`since`): before and after;
        /// and the part before split at the rules' own switch (the bench's decider; negative where the aggregator switched first).
        var decidingMs: [Double] = []
        var publishingMs: [Double] = []
        var ownMs: [Double] = []
        var toDecisionMs: [Double] = []
        /// Moves the aggregator switched and the bench's decider did not, before the beacon's next move.
        var movesRulesNever = 0
        var moves = 0
        var undecidedMoves = 0
        var publishFailures = 0
        var brokerDropped: Int?
        /// Publications the aggregator could not hand to its client (it logs each one), during the
        /// steady phase and during the warm-up.
        var aggregatorPublicationFailures = 0
        var aggregatorPublicationFailuresWarmUp = 0
        var warmUpSeconds = 0.0
        var aggregatorResidentBytes = 0
        var aggregatorPeakResidentBytes = 0
        var aggregatorUserCPUSeconds = 0.0
        var aggregatorSystemCPUSeconds = 0.0
        var aggregatorCPUSeconds: Double { aggregatorUserCPUSeconds + aggregatorSystemCPUSeconds }
        var brokerCPUSeconds = 0.0
        var aggregatorExitStatus: Int32 = 0
        /// Lines the aggregator logged (warnings and errors) during the steady phase, and the most
        /// lines of one kind (the same message) in any one second of the whole run.
        var aggregatorLogLines = 0
        var aggregatorLogLinesMaxPerSecondPerKind = 0
        var aggregatorLogLinesPerMinute: Double { seconds > 0 ? Double(aggregatorLogLines) * 60 / seconds : 0 }
        /// The aggregator's log, when it wrote anything (warnings and errors only).
        var aggregatorLogTail = ""

        var dropped: Int { undecidedMoves + publishFailures + (brokerDropped ?? 0) + aggregatorPublicationFailures }
        var late: Int { lagsMs.filter { $0 > 1_000 }.count }
        func lagPercentileMs(_ p: Double) -> Double { Self.percentile(lagsMs, p) }
        static func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return .nan }
            return sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))]
        }
    }

    /// The sum of `failed=<count>` over the aggregator's `aggregator publications failed` lines.
    static func failedPublications(inLog log: String) -> Int {
        var total = 0
        for line in log.split(separator: "\n") where line.contains("aggregator publications failed") {
            guard let range = line.range(of: "failed=") else { continue }
            total += Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return total
    }

    /// The log's lines, and the most lines with the same message in one second (swift-log's
    /// `<timestamp to the second> <level> <label>: <metadata> [<source>] <message>`).
    static func logLines(_ log: String) -> (lines: Int, maxPerSecondPerKind: Int) {
        var counts: [String: Int] = [:]
        var lines = 0
        for line in log.split(separator: "\n") {
            lines += 1
            guard let time = line.split(separator: " ", maxSplits: 1).first,
                  let source = line.range(of: "] ", options: .backwards) else { continue }
            counts["\(time) \(line[source.upperBound...])", default: 0] += 1
        }
        return (lines, counts.values.max() ?? 0)
    }

    /// The `room` string of a location payload, without parsing the whole JSON.
    static func roomName(in payload: [UInt8]) -> String? {
        let key = Array(#""room":""#.utf8)
        guard payload.count > key.count else { return nil }
        var index = 0
        while index + key.count < payload.count {
            if payload[index] == key[0], payload[index..<(index + key.count)].elementsEqual(key) {
                let start = index + key.count
                guard let end = payload[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: payload[start..<end], as: UTF8.self)
            }
            index += 1
        }
        return nil
    }
}
