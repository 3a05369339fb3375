import BeaconCore
import RoomDecisions

/// `presence-aggregator run --record FILE` with motion sensors configured: every change of a room's
/// motion, written beside the trace as its motion file (`MotionFileParser.path(besideTrace:)`,
/// docs/Files.md "Motion file") on the same clock, so `replay`, `learn` and `evaluate` see the
/// sensors as the aggregator did. Each row is flushed as it is written.
public final class MotionRecorder: Sendable {
    public var path: String { file.path }
    private let file: FlushedLineFile

    /// Creates (or truncates) the file and writes the header.
    public init(path: String) throws(MeasurementRecorder.OpenError) {
        file = try FlushedLineFile(path: path, header: MotionFileParser.header)
    }

    /// A room's motion started (true) or cleared (false) at `time`.
    public func record(room: String, occupied: Bool, at time: Instant) {
        file.write(MotionFileParser.row(MotionSample(time: time, room: room, occupied: occupied)))
    }
}
