import MQTTClient
import Synchronization

/// The aggregator's own retained locations, read once at start so that a restart sends nobody to
/// `not_home`; then the subscription ends.
///
/// Subscribed to `<root>/locations/+`, the broker also sent back every location the aggregator
/// published (unretained): in `presence-bench service` (5,000 beacons, the fleet's jitter) 1,353 of
/// the 3,353 messages its network thread read, acknowledged and matched were its own locations
/// (issue 38; the Scaling article). The broker sends the retained messages of a new
/// subscription before any later message to this client, so the first unretained location says
/// that every retained one has come: the subscription is then ended. A reconnect does not need it:
/// the aggregator then re-publishes what it holds.
enum RestoredLocationsFeed {
    private struct State: Sendable {
        var subscription: MQTTSubscription?
        var ended = false
    }

    /// Subscribes to `filter` and gives each retained message to `restore`, on the network thread,
    /// until the first unretained one; then unsubscribes.
    static func subscribe(_ filter: String, on connection: MQTTConnection,
                          restore: @escaping @Sendable (MQTTMessage) -> Void) async throws {
        let state = Mutex(State())
        let subscription = try await connection.subscribe(filter) { [weak connection] message in
            if message.retain {
                restore(message)
                return
            }
            let subscription: MQTTSubscription? = state.withLock { state in
                guard !state.ended else { return nil }
                state.ended = true
                return state.subscription
            }
            if let subscription, let connection { Task { try? await connection.unsubscribe(subscription) } }
        }
        // An unretained message that came before this line found no subscription to end.
        if state.withLock({ state in
            state.subscription = subscription
            return state.ended
        }) {
            try? await connection.unsubscribe(subscription)
        }
    }
}
