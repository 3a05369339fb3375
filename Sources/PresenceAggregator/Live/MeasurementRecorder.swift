#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import Synchronization

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

    public let path: String
    private let file: Mutex<OpaquePointer?>

    /// Creates (or truncates) the file and writes the header.
    public init(path: String) throws(OpenError) {
        guard let handle = fopen(path, "w") else {
            throw OpenError(path: path, reason: String(cString: strerror(errno)))
        }
        self.path = path
        file = Mutex(OpaquePointer(handle))
        write(ReplayCSV.recordHeader)
    }

    deinit {
        file.withLock { handle in
            if let handle { fclose(UnsafeMutablePointer<FILE>(handle)) }
            handle = nil
        }
    }

    /// One received measurement, at the time it was received.
    public func record(_ measurement: ReceivedMeasurement, at time: Instant) {
        write(ReplayCSV.recordRow(time: time, evidence: measurement.evidence))
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
