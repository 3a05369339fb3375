// Shared by the deployment tests: the shipped files under etc/, a broker running the shipped ACL,
// and clients logged in as the site's accounts.

import Foundation
import Logging
import MQTTClient
import Testing
import TestSupport

/// Files shipped in the repository (etc/…), read from the package root found from this file.
enum DeploymentFiles {
    static var packageRoot: URL { RecordedData.packageRoot(filePath: #filePath) }

    static func path(_ relative: String) -> String {
        packageRoot.appendingPathComponent(relative).path
    }

    /// The text of a shipped file; throws naming the path when it is missing.
    static func text(_ relative: String) throws -> String {
        let path = path(relative)
        guard FileManager.default.fileExists(atPath: path) else {
            throw TestBrokerError(.setupFailed, "shipped file missing: \(path)")
        }
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}

/// A shipped file's lines, rewritten for a test: each replacement must find its exact line, so a change
/// to the shipped file that a test no longer covers fails there; and nothing left may point outside
/// the test's directory (`/etc/`, `/var/`), so a test never reads or writes the machine's own files.
struct ShippedFileLines {
    let name: String
    private(set) var lines: [String]

    init(_ relative: String) throws {
        try self.init(name: relative, text: DeploymentFiles.text(relative))
    }

    init(name: String, text: String) {
        self.name = name
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    mutating func replace(_ line: String, with replacement: String) throws {
        guard let index = lines.firstIndex(of: line) else {
            throw TestBrokerError(.setupFailed, "\(name) has no line '\(line)'")
        }
        lines[index] = replacement
    }

    /// The lines, once none left outside a comment points at the machine's own files.
    func rewritten() throws -> [String] {
        for line in lines where !line.hasPrefix("#") && (line.contains("/etc/") || line.contains("/var/")) {
            throw TestBrokerError(.setupFailed, "\(name) line not rewritten by the test: \(line)")
        }
        return lines
    }
}

/// The accounts of a site (etc/mosquitto/acl) with test passwords, and `test-observer`, the tests'
/// instrument, which may read every topic.
enum SiteAccounts {
    static let passwords: [String: String] = [
        "kitchen-1": "kitchen-secret", "hall-1": "hall-secret", "operator": "operator-secret",
        "aggregator": "aggregator-secret", "homeassistant": "ha-secret", "viewer": "viewer-secret",
        observer: "observer-secret", espresense: "espresense-secret", gateway: "gateway-secret",
    ]
    static let observer = "test-observer"
    /// Foreign nodes' own accounts (an ESPresense node, a BLE gateway): their firmware's, not shipped.
    static let espresense = "test-espresense"
    static let gateway = "test-gateway"

    /// The shipped ACL plus the observer's and the foreign nodes' sections. Appended after every
    /// shipped line, so they change nothing that the shipped file says about the other accounts.
    static func aclText() throws -> String {
        try DeploymentFiles.text("etc/mosquitto/acl") + """

            # Added by the tests: an account that sees everything, and foreign nodes that write their own topics.
            user \(observer)
            topic read #
            user \(espresense)
            topic write espresense/#
            user \(gateway)
            topic write home/#

            """
    }

    /// Writes a file that mosquitto (running as user `mosquitto` when started as root) can read.
    static func writeReadable(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        guard chmod(path, 0o644) == 0 else { throw TestBrokerError(.setupFailed, "chmod \(path): errno \(errno)") }
    }

    /// A password file for every account, made with `mosquitto_passwd`.
    static func writePasswordFile(to path: String) throws {
        var first = true
        for (user, password) in passwords.sorted(by: { $0.key < $1.key }) {
            let result = try ToolRunner.run("/usr/bin/mosquitto_passwd", (first ? ["-b", "-c"] : ["-b"]) + [path, user, password])
            guard result.status == 0 else { throw TestBrokerError(.toolFailed, "mosquitto_passwd: \(result.output)") }
            first = false
        }
        guard chmod(path, 0o644) == 0 else { throw TestBrokerError(.setupFailed, "chmod \(path): errno \(errno)") }
    }
}

/// A test broker (TestBroker's generated config: loopback listener, password file) that enforces
/// the shipped ACL file.
final class SiteBroker: Sendable {
    let broker: TestBroker
    /// Holds the ACL file; removed at deinit.
    private let aclDirectory: String

    private init(broker: TestBroker, aclDirectory: String) {
        self.broker = broker
        self.aclDirectory = aclDirectory
    }

    deinit {
        broker.kill()
        try? FileManager.default.removeItem(atPath: aclDirectory)
    }

    static func start() async throws -> SiteBroker {
        let directory = try TestBroker.makeTemporaryDirectory()
        let aclFile = directory + "/acl"
        try SiteAccounts.writeReadable(try SiteAccounts.aclText(), to: aclFile)
        let broker = try await TestBroker.start(
            TestBroker.Configuration(users: SiteAccounts.passwords, extraLines: ["acl_file \(aclFile)"]))
        return SiteBroker(broker: broker, aclDirectory: directory)
    }

    /// A client logged in as `user` (each call a fresh client id).
    func client(_ user: String, lastWill: MQTTLastWill? = nil) async throws -> MQTTConnection {
        try await siteClient(host: broker.host, port: broker.port, user: user, lastWill: lastWill)
    }

    /// The observer's subscription to every topic.
    func observeEverything() async throws -> (MQTTConnection, MQTTSubscription) {
        let observer = try await client(SiteAccounts.observer)
        return (observer, try await observer.subscribe("#"))
    }
}

/// A connected client with the account's test password.
func siteClient(
    host: String, port: Int, user: String, password: String? = nil, lastWill: MQTTLastWill? = nil,
    tls: MQTTTLSConfiguration? = nil
) async throws -> MQTTConnection {
    var options = MQTTConnectionOptions(
        host: host, port: port, clientID: "\(user)-\(UInt32.random(in: 0...UInt32.max))",
        credentials: MQTTCredentials(username: user, password: password ?? SiteAccounts.passwords[user]),
        tls: tls, lastWill: lastWill)
    options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
    let connection = try MQTTConnection(options: options, logger: testLogger)
    try await connection.connect(timeout: .seconds(10))
    return connection
}

/// Publishes at QoS 1 and waits for the broker's acknowledgement: by then the broker has decided
/// about the message and, when allowed, queued it to every subscriber.
func publishAcknowledged(_ connection: MQTTConnection, _ topic: String, _ payload: String, retain: Bool = false) async throws {
    try await connection.publish(topic: topic, string: payload, qos: .atLeastOnce, retain: retain).acknowledged()
}

/// One publication the ACL must refuse: `intruder` writes `topic`; afterwards `marker` (the
/// topic's rightful writer where there is one) publishes `markerTopic`.
struct RefusedWrite {
    let intruder: String
    let topic: String
    let marker: String
    let markerTopic: String

    init(_ intruder: String, _ topic: String, rightfulWriter: String) {
        self.intruder = intruder
        self.topic = topic
        self.marker = rightfulWriter
        self.markerTopic = topic
    }

    init(_ intruder: String, _ topic: String, thenMarker marker: String, on markerTopic: String) {
        self.intruder = intruder
        self.topic = topic
        self.marker = marker
        self.markerTopic = markerTopic
    }
}

extension SiteBroker {
    /// Checks that each refused write is not delivered. mosquitto 2.0 drops an unauthorised
    /// publish silently (QoS 0 has no answer, QoS 1 is acknowledged as if accepted), so the
    /// return codes prove nothing: the intruder publishes at QoS 0 and, retained, at QoS 1 and
    /// waits for the acknowledgement; then the marker is published. The observer reads every
    /// topic, in the order the broker handled the messages, so once the marker has arrived the
    /// intruder's messages would have arrived before it. Where the marker is the rightful writer
    /// on the same topic it also proves the observer would have seen that topic.
    func expectRefused(_ writes: [RefusedWrite], observer: MQTTSubscription, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        var clients: [String: MQTTConnection] = [:]
        func connection(_ user: String) async throws -> MQTTConnection {
            if let existing = clients[user] { return existing }
            let made = try await client(user)
            clients[user] = made
            return made
        }
        for (index, write) in writes.enumerated() {
            let intruder = try await connection(write.intruder)
            try intruder.publish(topic: write.topic, string: "spoof-\(index)-qos0", qos: .atMostOnce)
            try await publishAcknowledged(intruder, write.topic, "spoof-\(index)-qos1", retain: true)
            let markerPayload = "marker-\(index)"
            try await publishAcknowledged(try await connection(write.marker), write.markerTopic, markerPayload)
            let seen = try await collect(observer) { $0.payloadString == markerPayload }
            let leaked = seen.filter { $0.payloadString?.hasPrefix("spoof-") ?? true }
            #expect(
                leaked.isEmpty,
                "\(write.intruder) could write \(write.topic): \(leaked.map { "\($0.topic) \(text($0))" })",
                sourceLocation: sourceLocation)
            #expect(seen.last?.topic == write.markerTopic, sourceLocation: sourceLocation)
        }
        for client in clients.values { await client.disconnect() }
    }
}
