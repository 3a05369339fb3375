/// What `MQTTConnectionCore` keeps behind its mutex: the connection's phase, the outbox, the
/// subscriptions and the acknowledgements awaited by message id.
extension MQTTConnectionCore {
    struct SubscriptionEntry {
        let filter: TopicFilter
        let qos: MQTTQoS
        let delivery: Delivery
    }

    /// Where a subscription's messages go.
    enum Delivery: Sendable {
        /// The subscription's stream (`MQTTSubscription`).
        case stream(AsyncStream<MQTTMessage>.Continuation)
        /// The subscriber's own handler, called on the network thread: no task between the
        /// socket and the subscriber's queue (`MQTTConnection.subscribe(_:qos:handler:)`).
        case handler(@Sendable (MQTTMessage) -> Void)

        func deliver(_ message: MQTTMessage) {
            switch self {
            case .stream(let continuation): continuation.yield(message)
            case .handler(let handler): handler(message)
            }
        }

        /// Ends a stream; a handler is simply no longer called.
        func finish() {
            if case .stream(let continuation) = self { continuation.finish() }
        }
    }

    /// An acknowledgement libmosquitto will report by message id.
    ///
    /// The id is only known when the C call returns, and the network thread may already have
    /// reported the acknowledgement by then. So the caller *claims* the id after the call: it finds
    /// the early report (`early`) or leaves what it waits for. Every call whose id can be
    /// reported claims it, so no entry is left behind.
    enum AckEntry {
        case publish(PendingResult<Void>)
        case subscribe(PendingResult<[Int]>)
        case unsubscribe(PendingResult<Void>)
        /// Nobody waits (QoS 0 publish, re-subscription after a reconnect).
        case ignore(String)
        case early(EarlyAck)
    }

    enum EarlyAck {
        case publish(reasonCode: Int)
        case subscribe(grantedQoS: [Int])
        case unsubscribe
    }

    /// A QoS ≥ 1 message published while not connected, handed to libmosquitto at the next CONNACK.
    struct QueuedMessage {
        let topic: String
        let payload: [UInt8]
        let qos: MQTTQoS
        let retain: Bool
        let acknowledgement: PendingResult<Void>
    }

    struct State {
        var phase: MQTTConnectionState = .idle
        /// Messages waiting for a connection, oldest first. Ours, not libmosquitto's: libmosquitto
        /// 2.0.11 also queues while disconnected, but a message queued before the first connection
        /// loses its retain flag (measured), and its queue has no bound.
        var outbox: [QueuedMessage] = []
        /// Set while the CONNACK callback hands the outbox over; new messages queue behind it so
        /// order is kept.
        var flushingOutbox = false
        var stopRequested = false
        /// The broker accepted the connection on the current socket.
        var connackAccepted = false
        var lastRefusal: MQTTError?
        /// The last error libmosquitto logged during this attempt (OpenSSL's reason for a failed
        /// handshake, for one): its return codes alone say only "connection lost".
        var lastLibraryError: String?
        var lastFailure: MQTTError?
        var acceptedConnections = 0
        var nextID: UInt64 = 0
        var subscriptions: [UInt64: SubscriptionEntry] = [:] {
            didSet { routes = Array(subscriptions.values) }
        }
        /// `subscriptions`' entries, for matching each received message: taken under the lock as one
        /// reference, matched outside it without copying an entry per subscription (issue 38).
        private(set) var routes: [SubscriptionEntry] = []
        var acks: [Int32: AckEntry] = [:]
        /// QoS ≥ 1 messages handed over and not yet acknowledged (the bounded queue).
        var pendingMessages = 0
        var droppedMessages = 0
        var receivedMessages = 0
        /// `MQTTConnection.batchDeliveries`: how long handlers' messages may gather, and whom to
        /// wake for them. Read by the network thread at each connection.
        var deliveryBatchWindow: Duration = .zero
        var deliveryBatchEnded: (@Sendable () -> Void)?
        var observers: [UInt64: AsyncStream<MQTTConnectionEvent>.Continuation] = [:]
        /// Who waits for the unacknowledged messages to fall to `atMost` (0: a flush).
        var drainWaiters: [(atMost: Int, waiter: PendingResult<Void>)] = []

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Caller side of the message-id handshake (see `AckEntry`).
        mutating func claim(_ messageID: Int32, as entry: AckEntry) -> EarlyAck? {
            if case .early(let early)? = acks[messageID] {
                acks[messageID] = nil
                return early
            }
            acks[messageID] = entry
            return nil
        }

        /// Network-thread side: the entry waiting for this id, or nil after leaving the report.
        mutating func report(_ messageID: Int32, _ early: EarlyAck) -> AckEntry? {
            guard let entry = acks.removeValue(forKey: messageID) else {
                acks[messageID] = .early(early)
                return nil
            }
            if case .early = entry {
                acks[messageID] = .early(early)
                return nil
            }
            return entry
        }

        /// One publish acknowledged or abandoned; returns the drain waiters to resume: those whose
        /// bound the pending messages have now fallen to.
        mutating func releasePending() -> [PendingResult<Void>] {
            pendingMessages = max(0, pendingMessages - 1)
            guard !drainWaiters.isEmpty, drainWaiters.contains(where: { pendingMessages <= $0.atMost }) else { return [] }
            let due = drainWaiters.filter { pendingMessages <= $0.atMost }.map(\.waiter)
            drainWaiters.removeAll { pendingMessages <= $0.atMost }
            return due
        }
    }

    // MARK: - Events (observers of the connection)

    func emit(_ event: MQTTConnectionEvent) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer.yield(event) }
    }

    func events() -> AsyncStream<MQTTConnectionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTConnectionEvent.self)
        let id: UInt64? = state.withLock { state in
            guard state.phase != .stopped else { return nil }
            let id = state.makeID()
            state.observers[id] = continuation
            return id
        }
        guard let id else {
            continuation.yield(.stopped)
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }
}
