/// Where the connection stands.
public enum MQTTConnectionState: Sendable, Hashable {
    /// Made, not started.
    case idle
    /// A TCP/TLS connect or CONNECT/CONNACK exchange is under way.
    case connecting
    /// The broker accepted us.
    case connected
    /// The last attempt failed or the connection was lost; the next attempt follows the backoff.
    case waitingToReconnect
    /// `disconnect()` was called and is flushing.
    case disconnecting
    /// Stopped for good.
    case stopped
}

/// What happened to the connection, in order, as `MQTTConnection.events()` reports it.
public enum MQTTConnectionEvent: Sendable, Equatable {
    /// The broker accepted a connection; subscriptions have been sent again. `isReconnect` is true
    /// from the second accepted connection on: the owner re-publishes its retained state then.
    case connected(sessionPresent: Bool, isReconnect: Bool)
    /// An accepted connection ended without `disconnect()` (broker gone, network, keepalive).
    case connectionLost(MQTTError)
    /// An attempt failed (refused, unreachable, TLS); the next one follows after `retryIn`.
    case connectFailed(MQTTError, retryIn: Duration)
    /// `disconnect()` finished, or the connection was dropped; no more events follow.
    case stopped
}

/// Counters for telemetry.
public struct MQTTConnectionStatistics: Sendable, Hashable {
    /// Accepted connections after the first.
    public var reconnects: Int
    /// QoS ≥ 1 messages refused because the pending queue was full.
    public var droppedMessages: Int
    /// QoS ≥ 1 messages handed over and not yet acknowledged.
    public var pendingMessages: Int
    /// Messages received from the broker.
    public var receivedMessages: Int
}
