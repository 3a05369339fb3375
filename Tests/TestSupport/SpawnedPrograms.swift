import Foundation
import Synchronization

/// The long-running programs one test starts (agents, aggregators, `watch`), by name, each with
/// its stdout and stderr in `<directory>/<name>.log`. Whatever still runs when the test is done
/// with this, because it passed or because it threw, is killed (SIGKILL) and reaped by `stopAll()`
/// at deinit: a failing test leaves no child behind to hold a port or write into the next test.
///
/// Programs that run to completion with their output read back belong to `ToolRunner.run`; the
/// test broker to `TestBroker`.
public final class SpawnedPrograms: Sendable {
    /// Where the logs go.
    public let directory: String
    /// Made by `init()`: removed at deinit with the logs in it.
    private let ownsDirectory: Bool

    private struct Program {
        let name: String
        let pid: pid_t
        /// Set when `isRunning` reaped the ended program.
        var exited: Int32?
    }

    /// Started and not yet waited for, in start order.
    private let programs = Mutex<[Program]>([])

    /// Logs in `directory`, which the test made and removes.
    public init(directory: String) {
        self.directory = directory
        self.ownsDirectory = false
    }

    /// Logs in a temporary directory of its own, removed at deinit.
    public init() throws {
        self.directory = try TestBroker.makeTemporaryDirectory()
        self.ownsDirectory = true
    }

    deinit {
        stopAll()
        if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Starts `executable` as `name` (unique among this test's programs) with the log at
    /// `logFile(of: name)`, or with stdout and stderr to `output` when given (a pipe the test
    /// reads); `environment` added to the test's own. Returns its pid.
    @discardableResult
    public func start(
        _ name: String, _ executable: String, _ arguments: [String], environment: [String: String] = [:], output: Int32? = nil
    ) throws -> pid_t {
        let descriptor = try output ?? openLog(of: name)
        defer { if output == nil { close(descriptor) } }
        let pid = try ToolRunner.spawn(executable, arguments, output: descriptor, environment: environment)
        programs.withLock { $0.append(Program(name: name, pid: pid)) }
        return pid
    }

    public func logFile(of name: String) -> String { directory + "/\(name).log" }

    /// What `name` has logged so far ("" when nothing could be read): for assertions and failure messages.
    public func log(of name: String) -> String {
        (try? String(contentsOfFile: logFile(of: name), encoding: .utf8)) ?? ""
    }

    /// Sends `signal` to `name` (SIGSTOP, SIGCONT, SIGKILL…) if it has not been reaped.
    public func signal(_ name: String, _ signal: Int32) {
        if let pid = programs.withLock({ $0.first { $0.name == name && $0.exited == nil }?.pid }) { kill(pid, signal) }
    }

    /// Whether `name` is still running; if it has ended, it is reaped and its status kept for `waitForExit`.
    public func isRunning(_ name: String) -> Bool {
        programs.withLock { programs in
            guard let index = programs.firstIndex(where: { $0.name == name }) else { return false }
            guard programs[index].exited == nil else { return false }
            var status: Int32 = 0
            guard waitpid(programs[index].pid, &status, WNOHANG) == programs[index].pid else { return true }
            programs[index].exited = ToolRunner.exitStatus(status)
            return false
        }
    }

    /// Waits for `name` to end (off the test's thread) and returns its exit status, or 128 + the
    /// signal that ended it.
    public func waitForExit(_ name: String) async throws -> Int32 {
        let program = programs.withLock { programs -> Program? in
            programs.firstIndex { $0.name == name }.map { programs.remove(at: $0) }
        }
        guard let program else { throw TestBrokerError(.setupFailed, "no program named \(name) was started or it was already waited for") }
        if let exited = program.exited { return exited }
        return try await ToolRunner.exit(of: program.pid)
    }

    /// SIGTERM, then the exit status: a clean stop.
    public func terminate(_ name: String) async throws -> Int32 {
        signal(name, SIGTERM)
        return try await waitForExit(name)
    }

    /// SIGTERM to every program still running at once, then each one's exit status, in start order.
    public func terminateAll() async throws -> [(name: String, status: Int32)] {
        let names = programs.withLock { $0.map(\.name) }
        for name in names { signal(name, SIGTERM) }
        var statuses: [(name: String, status: Int32)] = []
        for name in names { statuses.append((name, try await waitForExit(name))) }
        return statuses
    }

    /// SIGKILL and reap every program not yet waited for (a stopped one too: SIGKILL ends it).
    public func stopAll() {
        let running = programs.withLock { programs in
            defer { programs.removeAll() }
            return programs.filter { $0.exited == nil }.map(\.pid)
        }
        for pid in running {
            kill(pid, SIGKILL)
            _ = try? ToolRunner.waitForExit(pid)
        }
    }

    private func openLog(of name: String) throws -> Int32 {
        let descriptor = open(logFile(of: name), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw TestBrokerError(.setupFailed, "cannot open \(logFile(of: name)): errno \(errno)") }
        return descriptor
    }
}
