import Foundation
import TestSupport
import BeaconCore

/// Helpers for the tracking tests: the shared data directory and a seeded random generator.
enum TrackingTestSupport {
    /// `../shared/data` beside the package root, found from this file's path. Missing data is a
    /// failure, not a skip (common brief).
    static func sharedData(_ relative: String, filePath: String = #filePath) throws -> String {
        var url = URL(fileURLWithPath: filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        let path = url.deletingLastPathComponent().appendingPathComponent("shared/data").appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else { throw MissingSharedData(path: path) }
        return path
    }

    struct MissingSharedData: Error, CustomStringConvertible {
        var path: String
        var description: String { "shared data missing: \(path) (tests need ../shared/data beside the package)" }
    }

    static func read(_ relative: String) throws -> String {
        try String(contentsOfFile: try sharedData(relative), encoding: .utf8)
    }

    /// SplitMix64: deterministic, so a failing fuzz case can be replayed.
    typealias SeededRandom = TestSupport.SeededRandom
}
