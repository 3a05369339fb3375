import Foundation
import MQTTClient
import Testing
import TestSupport

/// The shipped etc/mosquitto/mosquitto.conf, run by a real mosquitto with only its paths and port
/// moved into a temporary directory: it loads, refuses anonymous clients, enforces the ACL, keeps
/// retained messages across a restart, and its commented TLS block works once uncommented.
@Suite("Deployment: broker configuration")
struct DeploymentBrokerConfigTests {
    @Test("mosquitto runs the shipped configuration: logins, ACL, persistence")
    func shippedConfiguration() async throws {
        let broker = try await ShippedConfigBroker.start()
        let port = broker.plainPort

        let anonymous = try MQTTConnection(
            options: MQTTConnectionOptions(host: "127.0.0.1", port: port, clientID: "anonymous"), logger: testLogger)
        let refusal = await #expect(throws: MQTTError.self) { try await anonymous.connect(timeout: .seconds(10)) }
        #expect(refusal?.isAuthenticationFailure == true)

        let observer = try await siteClient(host: "127.0.0.1", port: port, user: SiteAccounts.observer)
        let status = try await observer.subscribe("presence/nodes/+/status")
        let kitchen = try await siteClient(host: "127.0.0.1", port: port, user: "kitchen-1")
        // Refused by the ACL (acl_file is in effect), then kitchen-1's own status.
        try await publishAcknowledged(kitchen, "presence/nodes/hall-1/status", "spoof", retain: true)
        try await publishAcknowledged(kitchen, "presence/nodes/kitchen-1/status", "online", retain: true)
        let seen = try await collect(status, count: 1)
        #expect(seen.map { "\($0.topic) \(text($0))" } == ["presence/nodes/kitchen-1/status online"])
        await kitchen.disconnect()
        await observer.disconnect()

        // persistence: the retained status is saved at a clean stop and read back at start.
        try await broker.restart()
        let newcomer = try await siteClient(host: "127.0.0.1", port: port, user: "viewer")
        let retained = try await collect(try await newcomer.subscribe("presence/nodes/+/status"), count: 1)
        #expect(retained.map { "\($0.topic) \(text($0))" } == ["presence/nodes/kitchen-1/status online"])
        #expect(retained.first?.retain == true)
        await newcomer.disconnect()
        broker.stop()
        #expect(FileManager.default.fileExists(atPath: broker.directory + "/data/mosquitto.db"))
    }

    @Test("the commented TLS listener works when uncommented: mqtts with the CA file and a password")
    func tlsListener() async throws {
        let broker = try await ShippedConfigBroker.start(enableTLS: true)
        let tlsPort = try #require(broker.tlsPort)
        let tls = MQTTTLSConfiguration(caFile: try #require(broker.certificates).caFile)
        let kitchen = try await siteClient(host: "127.0.0.1", port: tlsPort, user: "kitchen-1", tls: tls)
        let observer = try await siteClient(host: "127.0.0.1", port: broker.plainPort, user: SiteAccounts.observer)
        let status = try await observer.subscribe("presence/nodes/+/status")
        try await publishAcknowledged(kitchen, "presence/nodes/kitchen-1/status", "online over tls", retain: true)
        #expect(try await collect(status, count: 1).map(text) == ["online over tls"])

        // Same accounts on both listeners (per_listener_settings false).
        let error = await #expect(throws: MQTTError.self) {
            _ = try await siteClient(host: "127.0.0.1", port: tlsPort, user: "kitchen-1", password: "wrong", tls: tls)
        }
        #expect(error?.isAuthenticationFailure == true)
        await kitchen.disconnect()
        await observer.disconnect()
        broker.stop()
    }
}

/// mosquitto with the shipped mosquitto.conf, rewritten only where a test must: its paths point
/// into a temporary directory and its listener to a free loopback port.
final class ShippedConfigBroker: @unchecked Sendable {
    let directory: String
    let plainPort: Int
    let tlsPort: Int?
    let certificates: TestCertificates?
    private var pid: pid_t?

    private init(directory: String, plainPort: Int, tlsPort: Int?, certificates: TestCertificates?) {
        self.directory = directory
        self.plainPort = plainPort
        self.tlsPort = tlsPort
        self.certificates = certificates
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var logFile: String { directory + "/mosquitto.log" }
    func log() -> String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    static func start(enableTLS: Bool = false) async throws -> ShippedConfigBroker {
        let directory = try TestBroker.makeTemporaryDirectory()
        let plainPort = try TestBroker.freeLoopbackPort()
        var tlsPort: Int?
        var certificates: TestCertificates?
        if enableTLS {
            repeat { tlsPort = try TestBroker.freeLoopbackPort() } while tlsPort == plainPort
            let certificateDirectory = directory + "/certs"
            try FileManager.default.createDirectory(atPath: certificateDirectory, withIntermediateDirectories: true)
            chmod(certificateDirectory, 0o755)
            certificates = try TestCertificates.generate(in: certificateDirectory)
        }
        let shipped = try DeploymentFiles.text("etc/mosquitto/mosquitto.conf")
        let configuration = try rewrite(shipped, directory: directory, plainPort: plainPort, tlsPort: tlsPort)
        try SiteAccounts.writeReadable(configuration, to: directory + "/mosquitto.conf")
        try SiteAccounts.writeReadable(try SiteAccounts.aclText(), to: directory + "/acl")
        try SiteAccounts.writePasswordFile(to: directory + "/passwd")
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        chmod(directory + "/data", 0o777)  // started as root, mosquitto writes here as user `mosquitto`

        let broker = ShippedConfigBroker(directory: directory, plainPort: plainPort, tlsPort: tlsPort, certificates: certificates)
        try await broker.restart()
        return broker
    }

    /// The shipped text with each path and port replaced; every replacement must find its line,
    /// so a change to the shipped file that the test no longer covers fails here.
    static func rewrite(_ shipped: String, directory: String, plainPort: Int, tlsPort: Int?) throws -> String {
        var file = ShippedFileLines(name: "etc/mosquitto/mosquitto.conf", text: shipped)
        try file.replace("listener 1883", with: "listener \(plainPort) 127.0.0.1")
        try file.replace("password_file /etc/mosquitto/passwd", with: "password_file \(directory)/passwd")
        try file.replace("acl_file /etc/mosquitto/acl", with: "acl_file \(directory)/acl")
        try file.replace("persistence_location /var/lib/mosquitto/", with: "persistence_location \(directory)/data/")
        if let tlsPort {
            try file.replace("#listener 8883", with: "listener \(tlsPort) 127.0.0.1")
            try file.replace("#cafile /etc/mosquitto/certs/ca.crt", with: "cafile \(directory)/certs/ca.crt")
            try file.replace("#certfile /etc/mosquitto/certs/server.crt", with: "certfile \(directory)/certs/server.crt")
            try file.replace("#keyfile /etc/mosquitto/certs/server.key", with: "keyfile \(directory)/certs/server.key")
            try file.replace("#require_certificate false", with: "require_certificate false")
            try file.replace("#tls_version tlsv1.2", with: "tls_version tlsv1.2")
        }
        return try file.rewritten().joined(separator: "\n")
    }

    /// Stops (SIGTERM: mosquitto saves its persistence file) and starts mosquitto again; returns
    /// once the plain listener accepts TCP connections.
    func restart() async throws {
        stop()
        let log = open(logFile, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard log >= 0 else { throw TestBrokerError(.setupFailed, "cannot open \(logFile): errno \(errno)") }
        defer { close(log) }
        let started = try ToolRunner.spawn(TestBroker.executable, ["-c", directory + "/mosquitto.conf"], output: log)
        pid = started
        // Readiness, polled a bounded number of times; a configuration error ends mosquitto at once.
        for _ in 0..<1000 {
            var status: Int32 = 0
            if waitpid(started, &status, WNOHANG) == started {
                pid = nil
                throw TestBrokerError(.exitedEarly, "mosquitto refused the shipped configuration:\n\(self.log())")
            }
            if Self.acceptsConnections(port: plainPort) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestBrokerError(.notReady, "mosquitto did not listen on \(plainPort):\n\(self.log())")
    }

    /// SIGTERM and wait: a clean shutdown that writes the persistence file.
    func stop() {
        guard let running = pid else { return }
        pid = nil
        Foundation.kill(running, SIGTERM)
        _ = try? ToolRunner.waitForExit(running)
    }

    private static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
