import Logging
import Synchronization

/// The state behind an `MQTTConnection`: subscriptions, acknowledgements awaited, observers,
/// counters, all in one `Mutex`, plus the network thread that runs libmosquitto.
///
/// Two kinds of thread touch it: the network thread (libmosquitto's callbacks and the reconnect
/// loop) and the owner's tasks (publish, subscribe, disconnect). Neither holds the mutex while
/// calling into libmosquitto or resuming a continuation, so neither can wait on the other.
final class MQTTConnectionCore: MosquittoEventHandler {
    let options: MQTTConnectionOptions
    let logger: Logger
    let state = Mutex(State())
    let wakeup = WakeupSignal()
    /// Completed by the first CONNACK: success, or the refusal.
    let firstConnection = PendingResult<Void>()
    /// Completed when the network thread has ended.
    let finished = PendingResult<Void>()

    init(options: MQTTConnectionOptions, logger: Logger) {
        self.options = options
        var logger = logger
        logger[metadataKey: "mqtt.client"] = "\(options.clientID)"
        self.logger = logger
    }

    // MARK: - Network thread

    /// Starts the network thread once; later calls do nothing.
    func start(_ handle: MosquittoHandle) throws(MQTTError) {
        let shouldStart = state.withLock { state in
            guard state.phase == .idle, !state.stopRequested else { return false }
            state.phase = .connecting
            return true
        }
        guard shouldStart else { return }
        // The thread holds the handle (and so this core) until it ends.
        let started = DetachedThread.start { [self] in
            run(handle)
        }
        if !started {
            state.withLock { $0.phase = .idle }
            throw MQTTError(.invalidConfiguration, "could not start the MQTT network thread")
        }
    }

    /// The network thread: connect, loop until the connection ends, wait the backoff, again; until
    /// a stop is requested.
    private func run(_ handle: MosquittoHandle) {
        logger.debug("MQTT network thread started", metadata: ["broker": "\(options.host):\(options.port)"])
        var consecutiveFailures = 0
        while true {
            let stopping = state.withLock { state in
                if !state.stopRequested {
                    state.phase = .connecting
                    state.connackAccepted = false
                    state.lastRefusal = nil
                    state.lastLibraryError = nil
                }
                return state.stopRequested
            }
            if stopping { break }

            var ended = handle.connect(
                host: options.host, port: options.port, keepAliveSeconds: options.keepAliveSeconds,
                sessionExpirySeconds: options.protocolVersion == .v5 && !options.cleanSession ? options.sessionExpirySeconds : 0)
            var disconnectSent = false
            let (window, batchEnded) = state.withLock { ($0.deliveryBatchWindow, $0.deliveryBatchEnded) }
            var batch = DeliveryBatch(window: window, received: state.withLock { $0.receivedMessages })
            while ended == nil {
                // A stop requested while mosquitto_connect blocked found no socket to disconnect.
                let (stopRequested, received) = state.withLock { ($0.stopRequested, $0.receivedMessages) }
                if !disconnectSent, stopRequested {
                    handle.disconnect()
                    disconnectSent = true
                }
                if let batchEnded, !batch.isIdle(received: received), batch.ends(received: received, at: .now) { batchEnded() }
                ended = handle.loop(timeoutMilliseconds: batch.isOpen ? batch.timeoutMilliseconds(at: .now, idle: 1000) : 1000)
            }
            batchEnded?()  // what the last turns delivered
            // Leave `.connected` before anyone hears of the loss: publishes from now on go to
            // the outbox.
            let (stop, accepted, refusal, libraryError) = state.withLock { state in
                if !state.stopRequested { state.phase = .waitingToReconnect }
                return (state.stopRequested, state.connackAccepted, state.lastRefusal, state.lastLibraryError)
            }
            var endError = ended ?? MQTTError(.notConnected, "connection ended")
            if let libraryError {
                endError = MQTTError(endError.code, "\(endError.message) (libmosquitto: \(libraryError))")
            }
            connectionEnded()
            if stop { break }

            let failure = refusal ?? endError
            let delay: Duration
            if accepted {
                logger.warning("MQTT connection lost", metadata: ["error": "\(endError.message)"])
                emit(.connectionLost(endError))
                consecutiveFailures = 0
                delay = options.reconnect.delay(afterFailures: 0)
            } else {
                delay = options.reconnect.delay(afterFailures: consecutiveFailures)
                logger.info(
                    "MQTT connect failed", metadata: ["error": "\(failure.message)", "retryIn": "\(delay)"])
                emit(.connectFailed(failure, retryIn: delay))
                if let refusal { firstConnection.complete(.failure(refusal)) }
            }
            consecutiveFailures += 1
            let stopNow = state.withLock { state in
                state.lastFailure = failure
                return state.stopRequested
            }
            if stopNow { break }
            wakeup.wait(for: delay)
        }
        shutDown()
        logger.debug("MQTT network thread ended")
    }

    /// After a socket closed: SUBSCRIBE/UNSUBSCRIBE in flight are answered as done, because the
    /// subscriptions are sent again at the next CONNACK; QoS 0 sends that never happened will not
    /// be reported. QoS ≥ 1 publishes stay pending: libmosquitto resends them.
    private func connectionEnded() {
        let (subscribes, unsubscribes) = state.withLock { state in
            var subscribes: [PendingResult<[Int]>] = []
            var unsubscribes: [PendingResult<Void>] = []
            state.connackAccepted = false
            for (id, entry) in state.acks {
                switch entry {
                case .subscribe(let result): subscribes.append(result); state.acks[id] = nil
                case .unsubscribe(let result): unsubscribes.append(result); state.acks[id] = nil
                case .ignore: state.acks[id] = nil
                case .publish, .early: break
                }
            }
            return (subscribes, unsubscribes)
        }
        for result in subscribes { result.complete(.success([])) }
        for result in unsubscribes { result.complete(.success(())) }
    }

    /// The thread's last act: everything still waiting learns the connection is gone.
    private func shutDown() {
        let (observers, streams, acks, drainWaiters, outbox) = state.withLock { state in
            state.phase = .stopped
            state.stopRequested = true
            defer {
                state.outbox = []
                state.observers = [:]
                state.subscriptions = [:]
                state.acks = [:]
                state.drainWaiters = []
                state.pendingMessages = 0
            }
            return (
                Array(state.observers.values), state.subscriptions.values.map(\.delivery), Array(state.acks.values),
                state.drainWaiters.map(\.waiter), state.outbox
            )
        }
        let stopped = MQTTError(.stopped, "the MQTT connection was stopped")
        for ack in acks {
            switch ack {
            case .publish(let result): result.complete(.failure(stopped))
            case .subscribe(let result): result.complete(.failure(stopped))
            case .unsubscribe(let result): result.complete(.failure(stopped))
            case .ignore, .early: break
            }
        }
        for message in outbox { message.acknowledgement.complete(.failure(stopped)) }
        for waiter in drainWaiters { waiter.complete(.success(())) }
        for stream in streams { stream.finish() }
        firstConnection.complete(.failure(stopped))
        for observer in observers {
            observer.yield(.stopped)
            observer.finish()
        }
        finished.complete(.success(()))
    }

    /// Asks the network thread to end: no flush. Safe from any thread, any number of times.
    func requestStop(_ handle: MosquittoHandle) {
        let neverStarted = state.withLock { state in
            state.stopRequested = true
            if state.phase == .idle {
                state.phase = .stopped
                return true
            }
            if state.phase != .stopped { state.phase = .disconnecting }
            return false
        }
        if neverStarted {
            shutDown()
            return
        }
        handle.disconnect()
        wakeup.signal()
    }

    /// Resolves when no QoS ≥ 1 message waits for its acknowledgement.
    func drained() async throws {
        try await pending(atMost: 0)
    }

    /// Resolves when at most `count` QoS ≥ 1 messages wait for their acknowledgement (at once if
    /// so already), or when the connection stops.
    func pending(atMost count: Int) async throws {
        let waiter: PendingResult<Void>? = state.withLock { state in
            guard state.pendingMessages > count else { return nil }
            let waiter = PendingResult<Void>()
            state.drainWaiters.append((count, waiter))
            return waiter
        }
        try await waiter?.value()
    }

    // MARK: - Publish

    func publish(_ handle: MosquittoHandle, topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool) throws(MQTTError)
        -> MQTTPublishReceipt
    {
        try TopicFilter.validateTopicName(topic)
        let limit = options.maxPendingMessages
        enum Route {
            case direct
            case queued(PendingResult<Void>)
            case refused(MQTTError)
        }
        let route: Route = state.withLock { state in
            if state.stopRequested {
                return .refused(MQTTError(.stopped, "publishing to \(topic): the connection was stopped"))
            }
            let connected = state.phase == .connected && !state.flushingOutbox
            guard qos != .atMostOnce else {
                return connected ? .direct : .refused(MQTTError(.notConnected, "publishing to \(topic): not connected"))
            }
            guard state.pendingMessages < limit else {
                state.droppedMessages += 1
                return .refused(
                    MQTTError(
                        .queueFull(limit: limit),
                        "publishing to \(topic): \(limit) messages already wait for acknowledgement; dropped"))
            }
            state.pendingMessages += 1
            guard connected else {
                let acknowledgement = PendingResult<Void>()
                state.outbox.append(
                    QueuedMessage(topic: topic, payload: payload, qos: qos, retain: retain, acknowledgement: acknowledgement))
                return .queued(acknowledgement)
            }
            return .direct
        }
        switch route {
        case .refused(let error):
            // Not logged here: under overload every publish is refused, and a line each flooded
            // the log (1.7 million in two minutes). The caller counts and summarises.
            throw error
        case .queued(let acknowledgement):
            return MQTTPublishReceipt(qos: qos, acknowledgement: acknowledgement)
        case .direct:
            if qos == .atMostOnce {
                switch handle.publish(topic: topic, payload: payload, qos: qos, retain: retain) {
                case .sent(let messageID), .queuedWhileDisconnected(let messageID):
                    _ = state.withLock { $0.claim(messageID, as: .ignore("publish \(topic)")) }
                    return MQTTPublishReceipt(qos: qos, acknowledgement: nil)
                case .failed(let error):
                    throw error
                }
            }
            let acknowledgement = PendingResult<Void>()
            hand(QueuedMessage(topic: topic, payload: payload, qos: qos, retain: retain, acknowledgement: acknowledgement), to: handle)
            if case .failure(let error)? = acknowledgement.result { throw error }
            return MQTTPublishReceipt(qos: qos, acknowledgement: acknowledgement)
        }
    }

    /// Gives a QoS ≥ 1 message (already counted in `pendingMessages`) to libmosquitto and files
    /// its acknowledgement under the message id. A refusal completes the acknowledgement with the
    /// error.
    private func hand(_ message: QueuedMessage, to handle: MosquittoHandle) {
        switch handle.publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain) {
        case .sent(let messageID), .queuedWhileDisconnected(let messageID):
            let (early, waiters): (EarlyAck?, [PendingResult<Void>]) = state.withLock { state in
                guard let early = state.claim(messageID, as: .publish(message.acknowledgement)) else { return (nil, []) }
                return (early, state.releasePending())
            }
            if case .publish(let reasonCode)? = early {
                message.acknowledgement.complete(Self.publishResult(reasonCode))
            }
            for waiter in waiters { waiter.complete(.success(())) }
        case .failed(let error):
            let waiters = state.withLock { $0.releasePending() }
            message.acknowledgement.complete(.failure(error))
            for waiter in waiters { waiter.complete(.success(())) }
        }
    }

    /// Hands the outbox to libmosquitto, oldest first, including messages queued meanwhile.
    func flushOutbox(_ handle: MosquittoHandle) {
        while true {
            let batch: [QueuedMessage] = state.withLock { state in
                guard !state.outbox.isEmpty, !state.stopRequested else {
                    state.flushingOutbox = false
                    return []
                }
                defer { state.outbox = [] }
                return state.outbox
            }
            if batch.isEmpty { return }
            for message in batch { hand(message, to: handle) }
        }
    }

    static func publishResult(_ reasonCode: Int) -> Result<Void, MQTTError> {
        guard reasonCode >= 0x80 else { return .success(()) }
        return .failure(
            MQTTError(
                .publishRejected(reasonCode: reasonCode),
                "broker rejected the message: \(MosquittoHandle.reasonText(reasonCode))"))
    }

    // MARK: - Subscribe

    /// With a `handler`, messages go to it on the network thread (its stream stays empty), else to the stream.
    func subscribe(_ handle: MosquittoHandle, filter: TopicFilter, qos: MQTTQoS,
                   handler: (@Sendable (MQTTMessage) -> Void)? = nil) async throws -> MQTTSubscription {
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTMessage.self)
        let delivery: Delivery = handler.map { .handler($0) } ?? .stream(continuation)
        let registration: (id: UInt64, connected: Bool)? = state.withLock { state in
            guard !state.stopRequested else { return nil }
            let id = state.makeID()
            state.subscriptions[id] = SubscriptionEntry(filter: filter, qos: qos, delivery: delivery)
            return (id, state.phase == .connected)
        }
        guard let registration else {
            throw MQTTError(.stopped, "subscribing to \(filter): the connection was stopped")
        }
        let id = registration.id
        if handler == nil {
            continuation.onTermination = { [weak self] _ in
                // The consumer stopped listening: stop routing to it. (The broker subscription stays
                // until `unsubscribe`; messages for it are then dropped here.)
                _ = self?.state.withLock { $0.subscriptions.removeValue(forKey: id) }
            }
        } else {
            continuation.finish()
        }
        let subscription = MQTTSubscription(id: id, filter: filter, qos: qos, messages: stream)
        // Not connected: the filter goes out with the others at the next CONNACK.
        guard registration.connected else { return subscription }

        switch handle.subscribe(filter.rawValue, qos: qos) {
        case .sent(let messageID), .queuedWhileDisconnected(let messageID):
            let result = PendingResult<[Int]>()
            if case .subscribe(let granted)? = state.withLock({ $0.claim(messageID, as: .subscribe(result)) }) {
                result.complete(.success(granted))
            }
            let granted = try await result.value()
            if let code = granted.first, code >= 0x80 {
                removeEntry(id)?.finish()
                throw MQTTError(
                    .subscriptionRejected(filter: filter.rawValue, reasonCode: code),
                    "broker refused the subscription to \(filter): \(MosquittoHandle.reasonText(code))")
            }
        case .failed(let error):
            if error.code != .notConnected {
                removeEntry(id)?.finish()
                throw error
            }
        }
        return subscription
    }

    private func removeEntry(_ id: UInt64) -> Delivery? {
        state.withLock { $0.subscriptions.removeValue(forKey: id)?.delivery }
    }

    func unsubscribe(_ handle: MosquittoHandle, _ subscription: MQTTSubscription) async throws {
        let (entry, sendToBroker) = state.withLock { state in
            let entry = state.subscriptions.removeValue(forKey: subscription.id)
            let stillUsed = state.subscriptions.values.contains { $0.filter == subscription.filter }
            return (entry, entry != nil && !stillUsed && state.phase == .connected)
        }
        entry?.delivery.finish()
        guard sendToBroker else { return }
        switch handle.unsubscribe(subscription.filter.rawValue) {
        case .sent(let messageID), .queuedWhileDisconnected(let messageID):
            let result = PendingResult<Void>()
            if state.withLock({ $0.claim(messageID, as: .unsubscribe(result)) }) != nil {
                result.complete(.success(()))
            }
            try await result.value()
        case .failed(let error):
            // Without a connection there is nothing to undo: the broker forgets (clean session)
            // or the filter is not sent again.
            if error.code != .notConnected { throw error }
        }
    }
}
