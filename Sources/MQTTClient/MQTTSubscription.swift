/// The messages of one subscription, in the order the broker sent them. Iterate it once (it is
/// an `AsyncStream` underneath). It ends after `MQTTConnection.unsubscribe(_:)` or when the
/// connection stops. Messages wait in an unbounded buffer until read: read promptly.
public struct MQTTSubscription: AsyncSequence, Sendable {
    /// Each element is one message from the broker.
    public typealias Element = MQTTMessage
    /// The iterator of the stream underneath.
    public typealias AsyncIterator = AsyncStream<MQTTMessage>.Iterator

    let id: UInt64
    /// The filter this subscription matches topics with.
    public let filter: TopicFilter
    /// The QoS asked for.
    public let qos: MQTTQoS
    let messages: AsyncStream<MQTTMessage>

    /// Returns the iterator of the subscription's stream; iterate a subscription once.
    public func makeAsyncIterator() -> AsyncStream<MQTTMessage>.Iterator {
        messages.makeAsyncIterator()
    }
}
