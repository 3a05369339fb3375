#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A file the aggregator records into while it runs (`run --record`: the trace, the motion file):
/// created or truncated with its header, one line at a time, each flushed as it is written, so the
/// file is complete whenever the aggregator stops.
final class FlushedLineFile: Sendable {
    let path: String
    private let file: Mutex<OpaquePointer?>

    init(path: String, header: String) throws(MeasurementRecorder.OpenError) {
        guard let handle = fopen(path, "w") else {
            throw MeasurementRecorder.OpenError(path: path, reason: String(cString: strerror(errno)))
        }
        self.path = path
        file = Mutex(OpaquePointer(handle))
        write(header)
    }

    deinit {
        file.withLock { handle in
            if let handle { fclose(UnsafeMutablePointer<FILE>(handle)) }
            handle = nil
        }
    }

    func write(_ line: String) {
        file.withLock { handle in
            guard let handle else { return }
            let stream = UnsafeMutablePointer<FILE>(handle)
            fputs(line + "\n", stream)
            fflush(stream)
        }
    }
}
