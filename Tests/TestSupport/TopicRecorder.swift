import Logging
import MQTTClient
import Synchronization

/// Everything published under a filter on a test broker, as `mosquitto_sub -v` would show it, with
/// a way to wait until what a test expects has arrived.
public final class TopicRecorder: Sendable {
    public struct Message: Sendable, CustomStringConvertible {
        public let topic: String
        public let payload: [UInt8]
        public let retain: Bool
        /// The QoS it was delivered with: the publisher's, up to the recorder's own 1.
        public let qos: Int
        /// When the recorder got it (for measuring how soon something arrived).
        public let receivedAt: ContinuousClock.Instant
        public var text: String { String(decoding: payload, as: UTF8.self) }
        public var description: String { "\(topic) \(text)" }
    }

    private struct State {
        var messages: [Message] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    /// Shared with the consumer task and waiters (a Mutex cannot be captured by itself).
    private final class Shared: Sendable {
        let mutex = Mutex(State())
        func withLock<R>(_ body: (inout State) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    private let state = Shared()
    private let connection: MQTTConnection
    private let consumer: Task<Void, Never>

    private init(connection: MQTTConnection, subscription: MQTTSubscription) {
        self.connection = connection
        let state = self.state
        consumer = Task {
            for await message in subscription {
                let waiters = state.withLock { state in
                    state.messages.append(Message(topic: message.topic, payload: message.payload, retain: message.retain, qos: Int(message.qos.rawValue), receivedAt: .now))
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                for waiter in waiters.values { waiter.resume() }
            }
        }
    }

    /// Connects to `broker` and subscribes to `filter` before returning. With `persistentSession`
    /// the broker keeps QoS 1 messages for the recorder while it is away (a broker restart with
    /// persistence included), so nothing published during an outage is missed by the test.
    public static func start(
        _ broker: TestBroker, filter: String = "#", clientID: String = "recorder", persistentSession: Bool = false
    ) async throws -> TopicRecorder {
        try await start(host: broker.host, port: broker.port, filter: filter, clientID: clientID, persistentSession: persistentSession)
    }

    /// The same on any broker, logged in with `credentials` and over TLS when given.
    public static func start(
        host: String, port: Int, credentials: MQTTCredentials? = nil, tls: MQTTTLSConfiguration? = nil,
        filter: String = "#", clientID: String = "recorder", persistentSession: Bool = false
    ) async throws -> TopicRecorder {
        var logger = Logger(label: "recorder")
        logger.logLevel = .critical
        var options = MQTTConnectionOptions(
            host: host, port: port, clientID: clientID, cleanSession: !persistentSession, credentials: credentials, tls: tls)
        options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(500))
        let connection = try MQTTConnection(options: options, logger: logger)
        try await connection.connect(timeout: .seconds(10))
        let subscription = try await connection.subscribe(filter, qos: .atLeastOnce)
        return TopicRecorder(connection: connection, subscription: subscription)
    }

    /// What has arrived so far, in order.
    public var messages: [Message] { state.withLock { $0.messages } }

    /// Payloads on one topic, in order.
    public func texts(_ topic: String) -> [String] { messages.filter { $0.topic == topic }.map(\.text) }

    /// Returns once `condition` holds for what has arrived; throws `TimedOut` (naming `what` and
    /// listing what did arrive) if it does not within `timeout`.
    @discardableResult
    public func wait(
        for what: String, timeout: Duration = .seconds(15), until condition: @escaping @Sendable ([Message]) -> Bool
    ) async throws -> [Message] {
        do {
            return try await within(what, timeout: timeout) { [state] in
                while true {
                    let messages = state.withLock { $0.messages }
                    if condition(messages) { return messages }
                    try Task.checkCancellation()
                    let id = state.withLock { state -> Int in
                        state.nextWaiter += 1
                        return state.nextWaiter
                    }
                    await withTaskCancellationHandler {
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            let resumeNow = state.withLock { state -> Bool in
                                if condition(state.messages) || Task.isCancelled { return true }
                                state.waiters[id] = continuation
                                return false
                            }
                            if resumeNow { continuation.resume() }
                        }
                    } onCancel: {
                        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                    }
                }
            }
        } catch let timedOut as TimedOut {
            let seen = messages.suffix(40).map { "  " + String($0.description.prefix(160)) }.joined(separator: "\n")
            throw TimedOut(what: "\(timedOut.what); last messages:\n\(seen)")
        }
    }

    /// Waits until a message on `topic` satisfies `matches`; returns the first that does.
    @discardableResult
    public func wait(forTopic topic: String, timeout: Duration = .seconds(15), matching matches: @escaping @Sendable (Message) -> Bool = { _ in true }) async throws -> Message {
        let messages = try await wait(for: "a message on \(topic)", timeout: timeout) { $0.contains { $0.topic == topic && matches($0) } }
        return messages.first { $0.topic == topic && matches($0) }!
    }

    public func stop() async {
        consumer.cancel()
        await connection.disconnect(flushTimeout: .seconds(1))
    }

    /// Publishes probes through `broker` (QoS 1, `presence/probe`) until one reaches this recorder:
    /// after a broker restart it is connected and subscribed again (the filter must cover the probe).
    public func probe(through broker: TestBroker, _ label: String) async throws {
        for attempt in 0..<100 {
            let payload = "probe-\(label)-\(attempt)"
            try broker.mosquittoPub(topic: "presence/probe", message: payload, qos: 1)
            do {
                try await wait(forTopic: "presence/probe", timeout: .milliseconds(200)) { $0.text == payload }
                return
            } catch is TimedOut {
                continue
            }
        }
        throw TimedOut(what: "probe \(label) to reach the recorder")
    }
}

