#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import RoomDecisions

/// The site's node calibration kept across restarts: `NodeCalibrationPayload`'s JSON in one file
/// (`node-calibration.json` in the aggregator's state directory), so a restarted aggregator applies
/// the offsets it was confident of at once instead of waiting for ten minutes of adverts.
///
/// A save is atomic (a temporary file beside it, fsync, rename): a power cut leaves the old file or
/// the new one. A load that fails names the file and why, and leaves the file where it is.
public enum NodeCalibrationFile {
    /// The file's name in the state directory.
    public static let name = "node-calibration.json"

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The calibration saved at `path`; nil when there is no file there yet.
    public static func load(path: String) throws(Failure) -> NodeCalibration? {
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path: path, maximumBytes: NodeCalibrationPayload.maximumBytes) } catch {
            switch error {
            case .unopened(let code):
                if code == ENOENT { return nil }
                throw Failure(path: path, reason: String(cString: strerror(code)))
            case .tooLarge: throw Failure(path: path, reason: "larger than \(NodeCalibrationPayload.maximumBytes) bytes: not a calibration file")
            case .readError: throw Failure(path: path, reason: "read error")
            }
        }
        do { return try NodeCalibrationPayload.parse(bytes) } catch { throw Failure(path: path, reason: error.description) }
    }

    /// Writes `calibration` to `path`, replacing what was there only once the new file is whole.
    public static func save(_ calibration: NodeCalibration, path: String) throws(Failure) {
        let text = NodeCalibrationPayload.json(calibration) + "\n"
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        var bytes = Array(text.utf8)
        var written = 0
        var failure: String?
        while written < bytes.count {
            let count = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
                break
            }
            written += count
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw Failure(path: path, reason: failure)
        }
        bytes.removeAll()
    }
}
