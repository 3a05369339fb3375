import Foundation
import Synchronization

/// Child processes and sockets for the speed benchmark: posix_spawn with a clean signal mask
/// (PITFALLS.md: a child of Foundation's `Process` may inherit blocked signals), the child's own
/// resource usage from `wait4`, and a free loopback port.
enum BenchProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Monotonic nanoseconds (wall time: latencies).
    static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// CPU nanoseconds of the calling thread: what a loop costs, not counting the time other
    /// processes had the core (this machine may be shared).
    static func threadCPUNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Starts `executable`; stdin from /dev/null, stdout and stderr to `logPath` (or /dev/null).
    static func spawn(_ executable: String, _ arguments: [String], logPath: String? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
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
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw Failure("cannot start \(executable): \(String(cString: strerror(rc)))") }
        return pid
    }

    struct Exit {
        var status: Int32
        /// User plus system CPU time of the child, seconds.
        var cpuSeconds: Double
        /// Peak resident set (ru_maxrss), bytes.
        var maxResidentBytes: Int
    }

    /// Waits for the child and returns its own resource usage.
    static func wait(_ pid: pid_t) throws -> Exit {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw Failure("wait4 failed: errno \(errno)") }
        }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        let signal = status & 0x7F
        return Exit(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, cpuSeconds: cpu,
                    maxResidentBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// `VmRSS` of a live process, bytes (nil when it is gone).
    static func residentBytes(pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.dropFirst(6).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// User plus system CPU time of a live process so far, seconds (nil when it is gone).
    static func cpuSeconds(pid: pid_t) -> Double? {
        cpuTimes(pid: pid).map { $0.user + $0.system }
    }

    /// User and system CPU time of a live process so far, seconds each (nil when it is gone).
    static func cpuTimes(pid: pid_t) -> (user: Double, system: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After the command name: state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / ticks, system / ticks)
    }

    /// False once the child has exited (a zombie not yet reaped counts as exited).
    static func processIsRunning(_ pid: pid_t) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return false }
        let state = text[text.index(after: close)...].drop(while: { $0 == " " }).first
        return state != "Z" && state != "X"
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure("bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure("getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    static func temporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/presence-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure("mkdtemp failed: errno \(errno)") }
        chmod(made, 0o755)
        return String(cString: made)
    }
}

/// A real mosquitto on a free loopback port, anonymous, no persistence; killed by `stop()`.
final class BenchBroker {
    let port: Int
    let pid: pid_t
    let directory: String
    /// With `unixSocket`: the path of the broker's second listener, a Unix-domain socket.
    let socketPath: String?

    /// `extraConfiguration`: more mosquitto.conf lines (e.g. `sys_interval 1`). `unixSocket`: a
    /// second listener on a Unix-domain socket in the broker's directory (`socketPath`).
    init(executable: String = "/usr/sbin/mosquitto", extraConfiguration: String = "", unixSocket: Bool = false) throws {
        directory = try BenchProcess.temporaryDirectory()
        port = try BenchProcess.freeLoopbackPort()
        let configuration = directory + "/mosquitto.conf"
        var socketListener = ""
        if unixSocket {
            // mosquitto makes the socket after dropping to the user `mosquitto`.
            let socketDirectory = directory + "/socket"
            try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
            chmod(socketDirectory, 0o777)
            socketPath = socketDirectory + "/mosquitto.sock"
            socketListener = "listener 0 \(socketDirectory)/mosquitto.sock\n"
        } else {
            socketPath = nil
        }
        // set_tcp_nodelay as in etc/mosquitto/mosquitto.conf.
        try "listener \(port) 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\nset_tcp_nodelay true\n\(extraConfiguration)\(socketListener)"
            .write(toFile: configuration, atomically: true, encoding: .utf8)
        chmod(configuration, 0o644)
        pid = try BenchProcess.spawn(executable, ["-c", configuration], logPath: directory + "/mosquitto.log")
        for _ in 0..<200 {
            if BenchProcess.canConnect(port: port), socketPath.map({ FileManager.default.fileExists(atPath: $0) }) ?? true { return }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        throw BenchProcess.Failure("mosquitto did not listen on port \(port); see \(directory)/mosquitto.log")
    }

    /// Stops mosquitto and deletes the synthetic captures written beside it (tens of megabytes a
    /// run); the logs stay, as the errors that name them may be read after.
    func stop() {
        kill(pid, SIGKILL)
        _ = try? BenchProcess.wait(pid)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".btsnoop") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}

/// A value shared between tasks and threads behind a lock (a `Mutex` itself cannot be captured
/// by an escaping closure).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
