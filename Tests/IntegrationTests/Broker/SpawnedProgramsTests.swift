import Foundation
import Testing
import TestSupport

/// The programs fixture itself, as the end-to-end tests rely on it: what a test leaves running is
/// gone with the fixture; exit statuses and logs are the programs' own.
@Suite("Spawned programs helper")
struct SpawnedProgramsTests {
    @Test("a program still running when the fixture goes away is killed and reaped, its logs removed")
    func cleanup() throws {
        var programs: SpawnedPrograms? = try SpawnedPrograms()
        let directory = try #require(programs?.directory)
        let pid = try #require(try programs?.start("sleeper", "/bin/sleep", ["600"]))
        #expect(programs?.isRunning("sleeper") == true)
        programs = nil
        // Reaped, not a zombie: no such process any more.
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("terminate, waitForExit and isRunning give each program's status; log(of:) its output")
    func statusesAndLogs() async throws {
        let programs = try SpawnedPrograms()
        try programs.start("server", "/bin/sh", ["-c", "echo listening; exec sleep 600"])
        try programs.start("failing", "/bin/sh", ["-c", "echo \"$GREETING\"; exit 3"], environment: ["GREETING": "hello"])
        _ = try await within("both programs to log") {
            while programs.log(of: "server") != "listening\n" || programs.isRunning("failing") {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(programs.log(of: "failing") == "hello\n")
        #expect(try await programs.waitForExit("failing") == 3)
        #expect(try await programs.terminate("server") == 128 + SIGTERM)
        await #expect(throws: TestBrokerError.self) { try await programs.waitForExit("server") }
    }
}
