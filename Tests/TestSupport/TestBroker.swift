// A real mosquitto (Debian's /usr/sbin/mosquitto) on a free loopback port, for integration tests.

import Foundation
import Synchronization

/// A mosquitto broker of a test's own: its own port, config and temporary directory.
///
/// ```swift
/// let broker = try await TestBroker.start()
/// defer { broker.stop() }          // also done when the last reference goes
/// … connect to 127.0.0.1:broker.port …
/// broker.kill(); try await broker.restart()   // same port, same config
/// ```
/// mosquitto is spawned with `posix_spawn` and an empty signal mask (a child of Foundation's
/// `Process` started from an async test inherits blocked SIGTERM; see PITFALLS.md), so both
/// `kill()` (SIGKILL: the broker vanishes) and `terminate()` (SIGTERM: it shuts down cleanly)
/// work.
public final class TestBroker: Sendable {
    /// What the generated mosquitto.conf contains beyond `listener PORT 127.0.0.1`.
    public struct Configuration: Sendable {
        /// Users and passwords; when non-empty, a password file is made with `mosquitto_passwd`
        /// and anonymous clients are refused.
        public var users: [String: String]
        /// TLS on the listener.
        public var tls: TLSFiles?
        /// Keep sessions and retained messages in a file across `terminate()`/`restart()` (saved at
        /// SIGTERM, and soon after each change).
        public var persistence: Bool
        /// More lines appended verbatim to the config.
        public var extraLines: [String]
        /// A second listener on a Unix-domain socket (`TestBroker.socketPath`), beside the TCP one.
        public var unixSocket: Bool

        public init(
            users: [String: String] = [:], tls: TLSFiles? = nil, persistence: Bool = false, extraLines: [String] = [],
            unixSocket: Bool = false
        ) {
            self.users = users
            self.tls = tls
            self.persistence = persistence
            self.extraLines = extraLines
            self.unixSocket = unixSocket
        }
    }

    /// Server side TLS files; with `requireClientCertificate`, clients must present a certificate
    /// signed by `caFile`.
    public struct TLSFiles: Sendable {
        public var caFile: String
        public var certificateFile: String
        public var keyFile: String
        public var requireClientCertificate: Bool

        public init(caFile: String, certificateFile: String, keyFile: String, requireClientCertificate: Bool) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.requireClientCertificate = requireClientCertificate
        }

        public init(_ certificates: TestCertificates, requireClientCertificate: Bool) {
            self.init(
                caFile: certificates.caFile, certificateFile: certificates.serverCertificateFile,
                keyFile: certificates.serverKeyFile, requireClientCertificate: requireClientCertificate)
        }
    }

    public static let executable = "/usr/sbin/mosquitto"

    /// Always 127.0.0.1: the listener is bound to loopback only.
    public let host = "127.0.0.1"
    public let port: Int
    /// The broker's temporary directory (config, password file, persistence, log). Removed at deinit.
    public let directory: String
    public let configuration: Configuration
    /// The running mosquitto, if any.
    private let process = Mutex<pid_t?>(nil)

    private var configFile: String { directory + "/mosquitto.conf" }
    /// The Unix-domain socket mosquitto listens on with `Configuration.unixSocket` (clients reach it
    /// as `unix://` + this path); in a directory of its own that the user `mosquitto` may write.
    public var socketPath: String { directory + "/socket/mosquitto.sock" }
    /// mosquitto's stdout and stderr, appended across restarts.
    public var logFile: String { directory + "/mosquitto.log" }

    private init(port: Int, directory: String, configuration: Configuration) {
        self.port = port
        self.directory = directory
        self.configuration = configuration
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Makes a temporary directory and config, starts mosquitto on a free loopback port (or on
    /// `port`), and returns once it accepts TCP connections. Retries with another free port if the
    /// one picked was taken meanwhile.
    public static func start(_ configuration: Configuration = Configuration(), port: Int? = nil) async throws -> TestBroker {
        var lastError: (any Error)?
        for _ in 0..<(port == nil ? 3 : 1) {
            let directory = try makeTemporaryDirectory()
            let broker = TestBroker(port: try port ?? freeLoopbackPort(), directory: directory, configuration: configuration)
            do {
                try broker.writeConfiguration()
                try await broker.restart()
                return broker
            } catch let error as TestBrokerError where error.kind == .exitedEarly {
                lastError = error  // most likely the port was taken meanwhile
            }
        }
        throw lastError ?? TestBrokerError(.exitedEarly, "mosquitto did not start")
    }

    /// Starts mosquitto again (after `kill()` or `terminate()`) on the same port with the same
    /// configuration, and returns once it accepts TCP connections.
    public func restart() async throws {
        kill()
        let log = open(logFile, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard log >= 0 else { throw TestBrokerError(.setupFailed, "cannot open \(logFile): errno \(errno)") }
        defer { close(log) }
        let pid = try ToolRunner.spawn(Self.executable, ["-c", configFile], output: log)
        process.withLock { $0 = pid }
        try await waitUntilAcceptingConnections()
    }

    /// SIGKILL, then wait for the process to be gone (its port is free again afterwards). The
    /// broker saves nothing at this point: with `Configuration.persistence` it autosaves after
    /// changes, but a change made just before the kill may not be on disk yet. Use `terminate()`
    /// when a test needs the broker's state to survive.
    public func kill() {
        end(with: SIGKILL)
    }

    /// SIGTERM, then wait: mosquitto's own clean shutdown (it writes its persistence file and
    /// closes client connections, so clients see their connection lost).
    public func terminate() {
        end(with: SIGTERM)
    }

    /// Same as `kill()`.
    public func stop() { kill() }

    /// SIGSTOP: the broker stops reading and answering, its connections stay open — a broker that
    /// has fallen behind, at its worst. `resume()` lets it go on where it was.
    public func pause() {
        if let pid = process.withLock({ $0 }) { Foundation.kill(pid, SIGSTOP) }
    }

    /// SIGCONT after `pause()`.
    public func resume() {
        if let pid = process.withLock({ $0 }) { Foundation.kill(pid, SIGCONT) }
    }

    public var isRunning: Bool {
        process.withLock { pid in
            guard let running = pid else { return false }
            var status: Int32 = 0
            if waitpid(running, &status, WNOHANG) == 0 { return true }
            pid = nil
            return false
        }
    }

    /// The broker's log so far (for failure messages).
    public func log() -> String {
        (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
    }

    private func end(with signal: Int32) {
        let pid = process.withLock { current -> pid_t? in
            defer { current = nil }
            return current
        }
        guard let pid else { return }
        // Spawned with an empty signal mask (ToolRunner), so SIGTERM is honoured too.
        Foundation.kill(pid, signal)
        _ = try? ToolRunner.waitForExit(pid)
    }

    // MARK: - Command line clients

    /// Runs `mosquitto_pub` against this broker and waits for it to finish.
    public func mosquittoPub(
        topic: String, message: String, qos: Int = 0, retain: Bool = false, username: String? = nil,
        password: String? = nil
    ) throws {
        var arguments = ["-h", host, "-p", "\(port)", "-t", topic, "-m", message, "-q", "\(qos)"]
        if retain { arguments.append("-r") }
        if let username { arguments += ["-u", username] }
        if let password { arguments += ["-P", password] }
        let result = try ToolRunner.run("/usr/bin/mosquitto_pub", arguments)
        guard result.status == 0 else {
            throw TestBrokerError(.toolFailed, "mosquitto_pub failed (\(result.status)): \(result.output)")
        }
    }

    /// Runs `mosquitto_sub` until it has `count` messages or `timeoutSeconds` pass (a failure
    /// guard); returns the payloads, one per message.
    /// With `verbose`, each line is `topic payload` (`mosquitto_sub -v`).
    public func mosquittoSub(topic: String, count: Int, timeoutSeconds: Int = 10, verbose: Bool = false) throws -> [String] {
        let result = try ToolRunner.run(
            "/usr/bin/mosquitto_sub",
            ["-h", host, "-p", "\(port)", "-t", topic, "-C", "\(count)", "-W", "\(timeoutSeconds)"] + (verbose ? ["-v"] : []))
        guard result.status == 0 else {
            throw TestBrokerError(.toolFailed, "mosquitto_sub failed (\(result.status)): \(result.output)")
        }
        return result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    // MARK: - Private

    private func writeConfiguration() throws {
        var lines = [
            "listener \(port) 127.0.0.1",
            "allow_anonymous \(configuration.users.isEmpty)",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
            "log_timestamp true",
        ]
        if !configuration.users.isEmpty {
            let passwordFile = directory + "/passwords"
            var first = true
            for (user, password) in configuration.users.sorted(by: { $0.key < $1.key }) {
                let result = try ToolRunner.run(
                    "/usr/bin/mosquitto_passwd", (first ? ["-b", "-c"] : ["-b"]) + [passwordFile, user, password])
                guard result.status == 0 else {
                    throw TestBrokerError(.toolFailed, "mosquitto_passwd failed: \(result.output)")
                }
                first = false
            }
            try makeReadable(passwordFile)
            lines.append("password_file \(passwordFile)")
        }
        if let tls = configuration.tls {
            for file in [tls.caFile, tls.certificateFile, tls.keyFile] { try makeReadable(file) }
            lines += [
                "cafile \(tls.caFile)",
                "certfile \(tls.certificateFile)",
                "keyfile \(tls.keyFile)",
                "require_certificate \(tls.requireClientCertificate)",
            ]
        }
        if configuration.unixSocket {
            // mosquitto makes the socket after dropping to the user `mosquitto`.
            let socketDirectory = (socketPath as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
            chmod(socketDirectory, 0o777)
            lines.append("listener 0 \(socketPath)")
        }
        if configuration.persistence {
            let data = directory + "/data/"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            // Started as root, mosquitto runs as user `mosquitto`, which must write here.
            chmod(data, 0o777)
            lines += ["persistence true", "persistence_location \(data)", "autosave_interval 1", "autosave_on_changes true"]
        }
        lines += configuration.extraLines
        try (lines.joined(separator: "\n") + "\n").write(toFile: configFile, atomically: true, encoding: .utf8)
        try makeReadable(configFile)
    }

    private func makeReadable(_ path: String) throws {
        guard chmod(path, 0o644) == 0 else {
            throw TestBrokerError(.setupFailed, "cannot make \(path) readable: errno \(errno)")
        }
    }

    /// Polls a TCP connect to the port, a bounded number of times with a short pause between
    /// attempts, until mosquitto accepts (readiness, not a guess at how long startup takes).
    private func waitUntilAcceptingConnections() async throws {
        for _ in 0..<1000 {
            if !isRunning {
                throw TestBrokerError(.exitedEarly, "mosquitto exited at start (port \(port)):\n\(log())")
            }
            if Self.canConnect(port: port) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestBrokerError(.notReady, "mosquitto did not accept connections on port \(port):\n\(log())")
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// The next port to try; each port is handed out once per test process.
    private static let nextPort = Mutex(Int.random(in: portRange.lowerBound..<(portRange.lowerBound + 4_000)))
    /// Below the kernel's ephemeral range (32768–60999), so no client's outgoing connection and no
    /// `bind(0)` elsewhere takes a port a killed broker will be restarted on.
    private static let portRange = 20_000..<32_000

    /// A free 127.0.0.1 port that no other test of this process has had: a broker killed for an
    /// outage test keeps its port to itself until it is restarted, and no other test's broker (or
    /// client) can take it meanwhile — which once made an outage test's clients reconnect to
    /// another test's broker.
    public static func freeLoopbackPort() throws -> Int {
        for _ in 0..<portRange.count {
            let port = nextPort.withLock { next -> Int in
                defer { next = next + 1 < portRange.upperBound ? next + 1 : portRange.lowerBound }
                return next
            }
            if canBind(port: port) { return port }
        }
        throw TestBrokerError(.setupFailed, "no free loopback port in \(portRange)")
    }

    private static func canBind(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// A fresh directory under the system temp dir, readable by the `mosquitto` user.
    public static func makeTemporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/test-broker-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TestBrokerError(.setupFailed, "mkdtemp failed: errno \(errno)")
        }
        let path = String(cString: made)
        chmod(path, 0o755)
        return path
    }
}

/// Why a test broker could not be set up.
public struct TestBrokerError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case setupFailed, exitedEarly, notReady, toolFailed }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { "TestBrokerError(\(kind)): \(message)" }
}
