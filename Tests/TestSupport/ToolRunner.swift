import Foundation

/// Runs a command-line tool to completion and collects its output (stdout and stderr together).
///
/// Spawned with `posix_spawn` and an empty signal mask with default dispositions: a child made by
/// Foundation's `Process` from an async test inherits a mask with signals blocked (PITFALLS.md),
/// and `mosquitto_sub -W` then never sees its SIGALRM and never exits.
public enum ToolRunner {
    public struct Result: Sendable {
        public let status: Int32
        /// Standard output, with standard error too unless `run(separateErrors: true)`.
        public let output: String
        /// Standard error when run with `separateErrors: true`, else empty.
        public var errors: String = ""
    }

    public static func run(_ executable: String, _ arguments: [String], separateErrors: Bool = false) throws -> Result {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw TestBrokerError(.setupFailed, "pipe() failed: errno \(errno)") }
        // Standard error goes to a file, not a second pipe: reading one pipe while the child fills
        // the other could deadlock.
        let errorPath = NSTemporaryDirectory() + "toolrunner-\(UUID().uuidString).err"
        let errorFile = separateErrors ? open(errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600) : -1
        defer {
            if errorFile >= 0 {
                close(errorFile)
                unlink(errorPath)
            }
        }
        let pid = try spawn(executable, arguments, output: pipeEnds[1], errors: errorFile >= 0 ? errorFile : nil)
        close(pipeEnds[1])
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count > 0 {
                output += buffer[0..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(pipeEnds[0])
        let status = try waitForExit(pid)
        let errors = separateErrors ? ((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "") : ""
        return Result(status: status, output: String(decoding: output, as: UTF8.self), errors: errors)
    }

    /// Starts `executable` with a clean signal mask, stdin from /dev/null and stdout and stderr to
    /// `output` (or /dev/null when nil); stderr to `errors` when given; `environment` added to (or
    /// replacing in) the test's own. Returns the child's pid.
    public static func spawn(
        _ executable: String, _ arguments: [String], output: Int32? = nil, errors: Int32? = nil,
        environment: [String: String] = [:]
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, errors ?? output, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGALRM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, given in given }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            throw TestBrokerError(.setupFailed, "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        return pid
    }

    /// Waits for a child started with `spawn`; returns its exit status, or 128 + signal.
    public static func waitForExit(_ pid: pid_t) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw TestBrokerError(.setupFailed, "waitpid failed: errno \(errno)") }
        }
        return exitStatus(status)
    }

    /// `waitForExit` on a thread of its own. Swift Testing runs async tests on one thread per core;
    /// a test that blocked one of them for the 20–40 s an agent replays a capture starved the other
    /// tests' broker clients, whose waits then timed out in a parallel `swift test`.
    public static func exit(of pid: pid_t) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try waitForExit(pid) }) }.start()
        }
    }

    /// A `waitpid` status as the exit status, or 128 + the signal that ended the process (as a shell says it).
    public static func exitStatus(_ waitStatus: Int32) -> Int32 {
        let signal = waitStatus & 0x7F
        return signal == 0 ? (waitStatus >> 8) & 0xFF : 128 + signal
    }
}
