import Foundation

/// Where SwiftPM put the executables built with the tests (the directory of the running test
/// binary), to spawn helper processes such as `mqtt-test-client`.
public enum BuildProducts {
    public static var directory: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On macOS the test binary sits inside an .xctest bundle (Contents/MacOS).
        while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
        return directory.path
    }

    /// The path of a built executable; throws naming the path when it is missing (build with
    /// `swift build --build-tests` first).
    public static func executable(named name: String) throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestBrokerError(.setupFailed, "\(path) is missing: run `swift build --build-tests` first")
        }
        return path
    }
}
