#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import RoomDecisions
import Synchronization

/// `presence-aggregator run --record FILE` with motion sensors configured: every change of a room's
/// motion, written beside the trace as its motion file (`MotionFileParser.path(besideTrace:)`,
/// docs/Files.md "Motion file") on the same clock, so `replay`, `learn` and `evaluate` see the
/// sensors as the aggregator did. Each row is flushed as it is written.
public final class MotionRecorder: Sendable {
    public let path: String
    private let file: Mutex<OpaquePointer?>

    /// Creates (or truncates) the file and writes the header.
    public init(path: String) throws(MeasurementRecorder.OpenError) {
        guard let handle = fopen(path, "w") else {
            throw MeasurementRecorder.OpenError(path: path, reason: String(cString: strerror(errno)))
        }
        self.path = path
        file = Mutex(OpaquePointer(handle))
        write(MotionFileParser.header)
    }

    deinit {
        file.withLock { handle in
            if let handle { fclose(UnsafeMutablePointer<FILE>(handle)) }
            handle = nil
        }
    }

    /// A room's motion started (true) or cleared (false) at `time`.
    public func record(room: String, occupied: Bool, at time: Instant) {
        write(MotionFileParser.row(MotionSample(time: time, room: room, occupied: occupied)))
    }

    private func write(_ line: String) {
        file.withLock { handle in
            guard let handle else { return }
            let stream = UnsafeMutablePointer<FILE>(handle)
            fputs(line + "\n", stream)
            fflush(stream)
        }
    }
}
