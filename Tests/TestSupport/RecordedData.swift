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

    /// The nodes a walk through rooms without a receiver leaves out of the flat: the bathroom's
    /// (`anchor5`) and the kitchen's (`anchor6`), so two of its five rooms have none (the tests of
    /// `learn` on rooms without a receiver; the recordings of a real house may not enter the repository).
    public static let droppedNodes: Set<String> = ["anchor5", "anchor6"]

    /// Writes the flat's real recordings (`traces-flat`, or only `names` of them) into `directory`,
    /// each trace without the rows of `droppedNodes`, each truth as it is.
    public static func writeFlatWithoutBathAndKitchenReceivers(to directory: String, names: [String]? = nil) throws {
        let flat = try path("traces-flat")
        let stems = try names ?? FileManager.default.contentsOfDirectory(atPath: flat)
            .filter { $0.hasSuffix(".truth.csv") }.map { String($0.dropLast(".truth.csv".count)) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for stem in stems {
            try FileManager.default.copyItem(atPath: flat + "/" + stem + ".truth.csv", toPath: directory + "/" + stem + ".truth.csv")
            // The shared files end their lines with CR LF: one Character, so split at any newline.
            let lines = try String(contentsOfFile: flat + "/" + stem + ".trace.csv", encoding: .utf8).split(whereSeparator: \.isNewline)
            let node = lines[0].split(separator: ",").firstIndex(of: "node") ?? 1
            let kept = [lines[0]] + lines.dropFirst().filter { line in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                return !(node < fields.count && droppedNodes.contains(String(fields[node])))
            }
            try (kept.joined(separator: "\n") + "\n").write(toFile: directory + "/" + stem + ".trace.csv", atomically: true, encoding: .utf8)
        }
    }

    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "recorded data missing: \(path) (the package's data/ folder; see data/README.md)" }
    }

    /// The real Android capture every HCI test reads.
    public static let horizonCapture = "captures/horizon-74-at-ble.btsnoop"
}
