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
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path: path, maximumBytes: maximumBytes) } catch {
            switch error {
            case .unopened(let code): throw LoadError(path: path, reason: String(cString: strerror(code)))
            case .tooLarge: throw LoadError(path: path, reason: "larger than \(maximumBytes) bytes: not a model file")
            case .readError: throw LoadError(path: path, reason: "read error")
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
