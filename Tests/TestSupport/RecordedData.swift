import Foundation

/// The recordings in the package's `data/` folder: openly licensed sets by others, each with its
/// licence beside it (data/README.md). A test that needs them fails loudly when one is missing; it
/// never skips.
public enum RecordedData {
    /// The package root, found by walking up from this file to Package.swift.
    public static func packageRoot(filePath: String = #filePath) -> URL {
        var url = URL(fileURLWithPath: filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// Where `data/<relative>` is, whether or not it exists.
    public static func expectedPath(_ relative: String) -> String {
        packageRoot().appendingPathComponent("data").appendingPathComponent(relative).standardizedFileURL.path
    }

    /// `data/<relative>`; throws naming the path when it is not there.
    public static func path(_ relative: String) throws -> String {
        let path = expectedPath(relative)
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// The text of a recorded file.
    public static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: try path(relative), encoding: .utf8)
    }

    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "recorded data missing: \(path) (the package's data/ folder; see data/README.md)" }
    }

    /// The real Android capture every HCI test reads.
    public static let horizonCapture = "captures/horizon-74-at-ble.btsnoop"
}
