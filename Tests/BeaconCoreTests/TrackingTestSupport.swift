import Foundation
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
    struct SeededRandom: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
