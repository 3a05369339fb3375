#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import RoomDecisions

/// Reads a model file (`SiteModel+JSON`): every error names the file and the line or field.
public enum SiteModelFile {
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The largest model file read: a model of 100 rooms × 1,000 nodes is about 5 MB.
    public static let maximumBytes = 16 << 20

    public static func load(path: String) throws(LoadError) -> SiteModel {
        var warnings: [String] = []
        return try load(path: path, warnings: &warnings)
    }

    /// `load(path:)`, adding to `warnings` what the owner should log (`SiteModel.init(json:warnings:)`:
    /// keys of settings since removed), each line starting with the path.
    public static func load(path: String, warnings: inout [String]) throws(LoadError) -> SiteModel {
        guard let file = fopen(path, "rb") else { throw LoadError(path: path, reason: String(cString: strerror(errno))) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += buffer[0..<count]
            if bytes.count > maximumBytes { throw LoadError(path: path, reason: "larger than \(maximumBytes) bytes: not a model file") }
            if count < buffer.count {
                if ferror(file) != 0 { throw LoadError(path: path, reason: "read error") }
                break
            }
        }
        do {
            var found: [String] = []
            let model = try SiteModel(json: bytes, warnings: &found)
            warnings += found.map { "\(path): \($0)" }
            return model
        } catch {
            throw LoadError(path: path, reason: error.description)
        }
    }
}
