import TestSupport
import Logging
import MQTTClient
import Testing

/// A logger that stays quiet unless something goes wrong.
let testLogger: Logger = {
    var logger = Logger(label: "mqtt-test")
    logger.logLevel = .critical  // refusals and TLS failures are expected here; the tests check them
    return logger
}()

/// The next `count` messages of a subscription (fewer only if the guard fires, which fails the test).
func collect(_ subscription: MQTTSubscription, count: Int, timeout: Duration = .seconds(10)) async throws -> [MQTTMessage] {
    try await within("\(count) messages on \(subscription.filter)", timeout: timeout) {
        var messages: [MQTTMessage] = []
        messages.reserveCapacity(count)
        for await message in subscription {
            messages.append(message)
            if messages.count == count { break }
        }
        return messages
    }
}

/// Messages until one satisfies `isLast` (included).
func collect(
    _ subscription: MQTTSubscription, until isLast: @escaping @Sendable (MQTTMessage) -> Bool,
    timeout: Duration = .seconds(10)
) async throws -> [MQTTMessage] {
    try await within("a message on \(subscription.filter)", timeout: timeout) {
        var messages: [MQTTMessage] = []
        for await message in subscription {
            messages.append(message)
            if isLast(message) { break }
        }
        return messages
    }
}

/// Waits for the first event that `matches`, from a stream obtained before the cause.
func waitForEvent(
    _ events: AsyncStream<MQTTConnectionEvent>, timeout: Duration = .seconds(10), _ what: String,
    matching matches: @escaping @Sendable (MQTTConnectionEvent) -> Bool
) async throws -> MQTTConnectionEvent {
    try await within(what, timeout: timeout) {
        for await event in events where matches(event) { return event }
        throw TimedOut(what: "\(what) (event stream ended)")
    }
}

func connectedClient(
    to broker: TestBroker, _ clientID: String, version: MQTTProtocolVersion = .v311,
    configure: (inout MQTTConnectionOptions) -> Void = { _ in }
) async throws -> MQTTConnection {
    var options = MQTTConnectionOptions(host: broker.host, port: broker.port, clientID: clientID, protocolVersion: version)
    options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
    configure(&options)
    let connection = try MQTTConnection(options: options, logger: testLogger)
    try await connection.connect(timeout: .seconds(10))
    return connection
}

