import Logging

/// An MQTT client connection: a Swift face on one libmosquitto client.
///
/// ```swift
/// let connection = try MQTTConnection(options: .init(clientID: "kitchen-1"), logger: logger)
/// try await connection.connect(timeout: .seconds(10))
/// let status = try await connection.subscribe("presence/+/status")
/// try connection.publish(topic: "presence/nodes/kitchen-1/status", string: "online", qos: .atLeastOnce, retain: true)
/// for await message in status { … }
/// await connection.disconnect()
/// ```
///
/// After the first `connect()`/`start()` the connection keeps itself up: when it drops, it
/// reconnects with capped exponential backoff (`MQTTReconnectPolicy`), sends every subscription
/// again and reports `.connected(isReconnect: true)` on `events()` so the owner can re-publish its
/// retained state. QoS ≥ 1 messages published while disconnected wait (bounded by
/// `maxPendingMessages`) and are sent after the reconnect.
public final class MQTTConnection: Sendable {
    /// The options the connection was made with.
    public let options: MQTTConnectionOptions
    private let core: MQTTConnectionCore
    private let handle: MosquittoHandle

    /// Creates the client and applies protocol version, credentials, TLS and last will. Nothing is
    /// sent until `connect()` or `start()`. Throws when libmosquitto refuses an option (for TLS:
    /// an unreadable CA, certificate or key file).
    public init(options: MQTTConnectionOptions, logger: Logger) throws(MQTTError) {
        guard (1...65_000).contains(options.maxPendingMessages) else {
            throw MQTTError(.invalidConfiguration, "maxPendingMessages must be 1…65000, not \(options.maxPendingMessages)")
        }
        guard options.keepAliveSeconds >= 5, options.keepAliveSeconds <= 65_535 else {
            throw MQTTError(.invalidConfiguration, "keepAliveSeconds must be 5…65535, not \(options.keepAliveSeconds)")
        }
        // Port 0 is libmosquitto's way to reach a Unix-domain socket at the path given as host.
        guard (1...65_535).contains(options.port) || (options.port == 0 && options.host.hasPrefix("/")) else {
            throw MQTTError(.invalidConfiguration, "port must be 1…65535 (or 0 with a Unix socket's path as host), not \(options.port)")
        }
        self.options = options
        let core = MQTTConnectionCore(options: options, logger: logger)
        self.core = core
        self.handle = try MosquittoHandle(clientID: options.clientID, cleanSession: options.cleanSession, handler: core)
        try handle.configure(options)
    }

    deinit {
        core.requestStop(handle)
    }

    /// Starts connecting in the background and returns at once; the connection then keeps itself
    /// up until `disconnect()`. Does nothing when already started.
    public func start() throws(MQTTError) {
        try core.start(handle)
    }

    /// Starts (if needed) and waits for the first accepted connection.
    ///
    /// Throws the broker's refusal (`connectionRefused`; see `MQTTError.isAuthenticationFailure`)
    /// and stops the connection then. While the broker cannot be reached it keeps trying: with a
    /// `timeout` it throws `timedOut` (naming the last failure) and leaves the connection trying
    /// in the background; call `disconnect()` to give up.
    public func connect(timeout: Duration? = nil) async throws {
        try start()
        do {
            if let timeout {
                let core = self.core
                _ = try await withTimeout(timeout, "the first connection") { try await core.firstConnection.value() }
            } else {
                try await core.firstConnection.value()
            }
        } catch let error as MQTTError {
            switch error.code {
            case .connectionRefused:
                await stop()
                throw error
            case .timedOut:
                let last = core.state.withLock { $0.lastFailure }
                throw MQTTError(.timedOut, error.message + (last.map { "; last attempt: \($0.message)" } ?? ""))
            default:
                throw error
            }
        }
    }

    /// Hands a message to libmosquitto and returns. QoS 0 needs a connection (else `notConnected`);
    /// QoS ≥ 1 is queued while disconnected, unless `maxPendingMessages` already wait, in which
    /// case it is dropped, counted in `statistics.droppedMessages`, and `queueFull` is thrown.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false)
        throws(MQTTError) -> MQTTPublishReceipt
    {
        try core.publish(handle, topic: topic, payload: payload, qos: qos, retain: retain)
    }

    /// `publish` with a UTF-8 string payload.
    @discardableResult
    public func publish(topic: String, string: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false)
        throws(MQTTError) -> MQTTPublishReceipt
    {
        try core.publish(handle, topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }

    /// Subscribes and returns the stream of matching messages. When connected it returns after the
    /// broker's SUBACK (so a message published afterwards is delivered); when not, the filter is
    /// sent at the next connection. Several subscriptions may overlap: each gets every message
    /// its filter matches.
    public func subscribe(_ filter: String, qos: MQTTQoS = .atLeastOnce) async throws -> MQTTSubscription {
        let topicFilter = try TopicFilter(filter)
        return try await core.subscribe(handle, filter: topicFilter, qos: qos)
    }

    /// Subscribes with a handler instead of a stream: each matching message is given to `handler`
    /// on the connection's network thread, in the broker's order, as soon as it is read — no task
    /// between the socket and the subscriber. The handler must be quick and must not block (it
    /// holds up every other message): hand the message to a queue. The returned subscription's
    /// stream is empty; pass it to `unsubscribe(_:)` to stop.
    public func subscribe(_ filter: String, qos: MQTTQoS = .atLeastOnce,
                          handler: @escaping @Sendable (MQTTMessage) -> Void) async throws -> MQTTSubscription {
        let topicFilter = try TopicFilter(filter)
        return try await core.subscribe(handle, filter: topicFilter, qos: qos, handler: handler)
    }

    /// How many QoS ≥ 1 messages go to the broker before their acknowledgements come back
    /// (1…65,535; libmosquitto's default is 20). Beyond it they wait in libmosquitto's queue and go
    /// one per acknowledgement, so a publisher of thousands a second is held to 20 per round trip
    /// to the broker. Call before `start()`/`connect()`. For MQTT 5 the broker's receive maximum,
    /// when lower, wins.
    public func setInflightWindow(_ count: Int) throws(MQTTError) {
        guard (1...65_535).contains(count) else {
            throw MQTTError(.invalidConfiguration, "the in-flight window must be 1…65535, not \(count)")
        }
        try handle.setInflightWindow(count)
    }

    /// Lets the messages given to handlers (`subscribe(_:qos:handler:)`) gather for up to `window`
    /// before `ended` is called on the network thread: a handler then only queues, and `ended`
    /// wakes whoever takes the queue, once per batch instead of once per message. A message that
    /// comes after a quiet spell (no other within `window` before it) ends its batch at once, so a
    /// low rate waits for nothing. Call before `start()`/`connect()`; it holds from the next
    /// connection. `ended` must be quick and must not block.
    public func batchDeliveries(window: Duration, ended: @escaping @Sendable () -> Void) {
        core.state.withLock { state in
            state.deliveryBatchWindow = max(.zero, window)
            state.deliveryBatchEnded = ended
        }
    }

    /// Ends the subscription's stream and, when no other subscription uses the same filter,
    /// unsubscribes at the broker (waiting for the UNSUBACK while connected).
    public func unsubscribe(_ subscription: MQTTSubscription) async throws {
        try await core.unsubscribe(handle, subscription)
    }

    /// A new stream of connection events from now on; it ends after `.stopped`.
    public func events() -> AsyncStream<MQTTConnectionEvent> {
        core.events()
    }

    /// Where the connection stands now.
    public var state: MQTTConnectionState {
        core.state.withLock { $0.phase }
    }

    /// The connection's counters now (reconnects, dropped, pending and received messages), for telemetry.
    public var statistics: MQTTConnectionStatistics {
        core.state.withLock { state in
            MQTTConnectionStatistics(
                reconnects: max(0, state.acceptedConnections - 1),
                droppedMessages: state.droppedMessages,
                pendingMessages: state.pendingMessages,
                receivedMessages: state.receivedMessages
            )
        }
    }

    /// Returns once at most `count` QoS ≥ 1 messages wait to be sent or acknowledged (at once if
    /// so already), or when the connection stops. A publisher that holds messages back while
    /// the broker is behind waits on it to send more.
    public func pendingMessages(atMost count: Int) async {
        try? await core.pending(atMost: max(0, count))
    }

    /// When connected, waits (at most `flushTimeout`) until every QoS ≥ 1 message is
    /// acknowledged, then sends DISCONNECT behind anything still queued (so the broker discards
    /// the last will), and returns when the network thread has ended. When not connected it stops
    /// at once: nothing can be flushed. Subscription and event streams end; acknowledgements still
    /// awaited fail with `stopped`.
    public func disconnect(flushTimeout: Duration = .seconds(5)) async {
        if state == .connected {
            let core = self.core
            do {
                try await withTimeout(flushTimeout, "acknowledgement of queued messages") { try await core.drained() }
            } catch {
                core.logger.warning(
                    "MQTT disconnect without flush", metadata: ["pending": "\(statistics.pendingMessages)"])
            }
        }
        await stop()
    }

    private func stop() async {
        core.requestStop(handle)
        _ = try? await core.finished.value()
    }
}
