/// A message handed to libmosquitto. For QoS ≥ 1 its acknowledgement can be awaited.
public struct MQTTPublishReceipt: Sendable {
    /// The QoS the message was published with.
    public let qos: MQTTQoS
    let acknowledgement: PendingResult<Void>?

    /// Returns once the broker has the message: PUBACK (QoS 1) or PUBCOMP (QoS 2); at once for
    /// QoS 0. A message published while disconnected is acknowledged after the reconnect.
    /// Throws `MQTTError` (`publishRejected`, `stopped`) or `CancellationError`.
    public func acknowledged() async throws {
        try await acknowledgement?.value()
    }

    /// Whether the acknowledgement has arrived (always true for QoS 0).
    public var isAcknowledged: Bool {
        guard let acknowledgement else { return true }
        if case .success? = acknowledgement.result { return true }
        return false
    }
}
