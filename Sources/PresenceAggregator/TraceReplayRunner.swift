import BeaconCore
import RoomDecisions

/// Streams a trace file through `TraceReplay` and hands each output CSV line (header first) to a
/// sink — the body of `presence-aggregator replay`, kept here so tests run it without a process.
public enum TraceReplayRunner {
    public enum Output: Sendable {
        /// `time,beacon,room,distance`: one row when deciding starts for a beacon, one per change.
        case decisions
        /// One row per input sample after the node's filter.
        case measurements
        /// What the nodes published, as a recorded trace (`ReplayCSV.recordHeader`), the format
        /// `presence-aggregator run --record` writes.
        case published
    }

    public struct Summary: Sendable, Hashable {
        public var samples: Int
        public var rows: Int
        /// Lines up to 10 ms out of order, taken at the previous time.
        public var reorderedLines: Int
        /// Nodes of the trace that the site model does not know (left to the physics decision).
        public var unknownNodes: [String] = []
        /// The model's nodes the trace had not heard from when deciding started (a receiver off).
        public var absentNodes: [String] = []
    }

    /// Replays the trace at `path`; throws `TraceError` (naming the line) for a malformed trace or
    /// `TraceFile.ReadError` when it cannot be read. Lines already written stay written.
    @discardableResult
    public static func run(
        path: String, output: Output, tracking: TrackingParameters = .default,
        decision: RoomDecisionParameters = .default,
        knownBeacons: [KnownBeacon] = [], model: SiteModel? = nil, motion: [MotionSample] = [],
        motionParameters: MotionParameters = .default, write: (String) -> Void
    ) throws -> Summary {
        var replay = TraceReplay(tracking: tracking, decision: decision, model: model)
        replay.knownBeacons = knownBeacons
        replay.motion = motion
        replay.motionParameters = motionParameters
        replay.keepsPublished = output == .published
        var parser = TraceParser()
        var summary = Summary(samples: 0, rows: 0, reorderedLines: 0)
        var headerWritten = false
        try TraceFile.forEachLine(path: path) { (_, line) throws(TraceError) in
            let parsed = try parser.parse(line: line)
            if !headerWritten {
                // Only once the trace's header was accepted, so a wrong file gives no CSV at all.
                switch output {
                case .decisions: write(ReplayCSV.decisionHeader)
                case .measurements: write(ReplayCSV.measurementHeader)
                case .published: write(ReplayCSV.recordHeader)
                }
                headerWritten = true
            }
            guard let sample = parsed else { return }
            summary.samples += 1
            let step = replay.step(sample)
            switch output {
            case .measurements:
                write(ReplayCSV.measurementRow(step.measurement))
                summary.rows += 1
            case .published:
                for published in replay.takePublished() {
                    write(ReplayCSV.recordRow(time: published.time, evidence: published.evidence))
                    summary.rows += 1
                }
            case .decisions:
                for timed in step.decisions {
                    write(ReplayCSV.decisionRow(timed.decision, at: timed.time))
                    summary.rows += 1
                }
            }
        }
        guard headerWritten else { throw TraceError(line: 1, problem: "empty file: header missing") }
        summary.reorderedLines = parser.reorderedLines
        summary.unknownNodes = replay.takeUnknownNodes()
        summary.absentNodes = replay.takeAbsentNodes()
        return summary
    }
}
