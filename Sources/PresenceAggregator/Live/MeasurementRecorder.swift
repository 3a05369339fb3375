import BeaconCore

/// `presence-aggregator run --record FILE`: every measurement the aggregator receives, written
/// as a recorded trace (docs/Files.md "Recorded traces", `ReplayCSV.recordHeader`) on the aggregator's
/// clock — Unix seconds, the clock `presence-aggregator label` stamps the truth with — so a walk
/// recorded live can be learned from (`learn`) and replayed (`replay`) exactly as it was received.
/// Each row is flushed as it is written: the file is complete whenever the aggregator stops.
public final class MeasurementRecorder: Sendable {
    public struct OpenError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    public var path: String { file.path }
    private let file: FlushedLineFile

    /// Creates (or truncates) the file and writes the header.
    public init(path: String) throws(OpenError) {
        file = try FlushedLineFile(path: path, header: ReplayCSV.recordHeader)
    }

    /// One received measurement, at the time it was received.
    public func record(_ measurement: ReceivedMeasurement, at time: Instant) {
        file.write(ReplayCSV.recordRow(time: time, evidence: measurement.evidence))
    }
}
