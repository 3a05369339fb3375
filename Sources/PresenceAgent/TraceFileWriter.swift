import BeaconCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes what a node measured as a trace (docs/Files.md's input format) for offline tuning with
/// `presence-aggregator replay`: `presence-agent run … --record FILE`.
///
/// Rows are buffered and written in blocks (at most a second late), so recording costs the agent a
/// string append per advertisement. A write that fails is reported once and recording stops; the
/// agent itself keeps running.
final class TraceFileWriter {
    let path: String
    private var descriptor: Int32
    private var buffer = ""
    private(set) var failure: String?

    init(path: String) throws(AgentConfiguration.Error) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw AgentConfiguration.Error("--record", "cannot write '\(path)' (\(String(cString: strerror(errno))))")
        }
        buffer = TraceSample.csvHeader + "\n"
    }

    deinit { close() }

    func append(_ sample: TraceSample) {
        guard descriptor >= 0 else { return }
        buffer += sample.csvLine
        buffer += "\n"
        if buffer.utf8.count >= 64 * 1024 { flush() }
    }

    func flush() {
        guard descriptor >= 0, !buffer.isEmpty else { return }
        let bytes = Array(buffer.utf8)
        buffer = ""
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = "\(path): \(String(cString: strerror(errno))); recording stopped"
                Glibc.close(descriptor)
                descriptor = -1
                return
            }
            offset += written
        }
    }

    func close() {
        flush()
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
