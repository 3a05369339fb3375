import BeaconCore
import RoomDecisions
import Logging
import MQTTClient
import PresenceAggregator
import ServiceLifecycle
import TestSupport
import Synchronization
import Testing

// A running aggregator on a real mosquitto: the live tests' service, clock and observer. What they
// send and read (measurements, JSON payloads) is in TestSupport/AggregatorMessages.swift.

/// A logger that stays quiet unless something goes wrong.
let quietLogger: Logger = {
    var logger = Logger(label: "aggregator-test")
    logger.logLevel = .critical
    return logger
}()

/// Waits (bounded) until `condition` holds, checking after each yield: for counters of work the
/// service has done, not for time to pass.
func eventually(_ what: String, timeout: Duration = .seconds(10), _ condition: @escaping @Sendable () -> Bool) async throws {
    _ = try await within(what, timeout: timeout) {
        while !condition() { try await Task.sleep(for: .milliseconds(2)) }
        return true
    }
}

/// Reads a subscription message by message; each `next` waits (bounded) for one message.
final class MessageReader: @unchecked Sendable {
    private var iterator: MQTTSubscription.AsyncIterator
    let filter: String

    init(_ subscription: MQTTSubscription) {
        iterator = subscription.makeAsyncIterator()
        filter = subscription.filter.rawValue
    }

    func next(timeout: Duration = .seconds(10)) async throws -> MQTTMessage {
        let box = UncheckedBox(self)
        return try await within("a message on \(filter)", timeout: timeout) {
            guard let message = await box.value.iterator.next() else { throw TimedOut(what: "\(box.value.filter) (ended)") }
            return message
        }
    }

    /// Messages until one satisfies `isLast`; returns them all (the last included).
    func until(timeout: Duration = .seconds(10), _ isLast: (MQTTMessage) -> Bool) async throws -> [MQTTMessage] {
        var messages: [MQTTMessage] = []
        while true {
            let message = try await next(timeout: timeout)
            messages.append(message)
            if isLast(message) { return messages }
        }
    }
}

struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A running aggregator on a test broker, with a manual clock and an observer connection.
struct LiveAggregator {
    let broker: TestBroker
    let clock: ManualClock
    let service: AggregatorService
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let client: MQTTConnection

    static func configuration(for broker: TestBroker, _ configure: (inout AggregatorConfiguration) -> Void = { _ in })
        -> AggregatorConfiguration
    {
        var configuration = AggregatorConfiguration.default
        configuration.broker = MQTTBrokerURL(host: broker.host, port: broker.port)
        configuration.clientID = "aggregator-under-test"
        // Explicit, so the timings below do not move with the defaults.
        configuration.decision = RoomDecisionParameters(
            settleTime: 1, staleAfter: 12, awayTimeout: 30,
            rule: SwitchingRule(margin: 0.25, dwell: 1.5, evidenceToSwitch: 1.5, leadCap: 3))
        configure(&configuration)
        return configuration
    }

    /// Starts the service and returns once it published `online`. Its clock starts at `time`, or is
    /// `clock` when given (one the test's agents share, so both hear the same time).
    static func start(
        on broker: TestBroker, at time: Instant = startTime, clock: ManualClock? = nil, client: MQTTConnection,
        publishingWindow: Int = 2_000, backlogEventLimit: Int = 10_000, recorder: MeasurementRecorder? = nil,
        _ configure: (inout AggregatorConfiguration) -> Void = { _ in }
    ) async throws -> LiveAggregator {
        let configuration = configuration(for: broker, configure)
        let status = MessageReader(try await client.subscribe(configuration.topics.aggregatorStatus))
        let clock = clock ?? ManualClock(now: time)
        let service = AggregatorService(
            configuration: configuration, clock: clock, logger: quietLogger, softwareVersion: "9.8.7",
            supportURL: "https://example.org/beaconpresence",
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200)),
            recorder: recorder, publishingWindow: publishingWindow, backlogEventLimit: backlogEventLimit)
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: quietLogger))
        let task = Task { try await group.run() }
        _ = try await status.until { text($0) == "online" }
        return LiveAggregator(broker: broker, clock: clock, service: service, group: group, task: task, client: client)
    }

    /// Lets `seconds` pass on the aggregator's clock in steps of at most one second (as the live
    /// ticker would) and waits until the service has handled every tick.
    func advance(by seconds: Double, step: Double = 1) async throws {
        var left = seconds
        while left > 1e-9 {
            let move = min(step, left)
            let before = service.statistics.ticks
            clock.advance(by: move)
            let service = self.service
            try await eventually("tick handled") { service.statistics.ticks > before }
            left -= move
        }
    }

    /// Publishes measurements and waits until the service has parsed them (used or ignored).
    func measure(_ beacon: BeaconID, _ readings: [(node: String, room: String, distance: Double?)], alias: String? = nil) async throws {
        let service = self.service
        let before = service.statistics.measurements + service.statistics.malformedMeasurements
        for reading in readings {
            try client.publish(
                topic: service.configuration.topics.measurement(alias ?? beacon.rawValue, TopicLevelID(reading.node)!),
                string: measurementJSON(beacon, node: reading.node, room: reading.room, distance: reading.distance),
                qos: .atLeastOnce)
        }
        try await eventually("\(readings.count) measurements handled") {
            service.statistics.measurements + service.statistics.malformedMeasurements >= before + readings.count
        }
    }

    /// Graceful shutdown, as SIGTERM would do it.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

func observer(_ broker: TestBroker, _ clientID: String = "observer") async throws -> MQTTConnection {
    var options = MQTTConnectionOptions(host: broker.host, port: broker.port, clientID: clientID)
    options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200))
    let connection = try MQTTConnection(options: options, logger: quietLogger)
    try await connection.connect(timeout: .seconds(10))
    return connection
}

/// What `presence-aggregator watch --once` prints for the broker's retained state, line by line
/// (160 columns, on the tests' start time).
func watchOnce(_ broker: TestBroker) async throws -> [String] {
    let output = Mutex("")
    let watch = WatchService(
        options: .init(connection: MQTTConnectionOptions(host: broker.host, port: broker.port, clientID: "watch"),
                       topics: .default, title: "presence", terminal: false, once: true),
        logger: quietLogger, output: { text in output.withLock { $0 += text } }, screenSize: { (160, 50) },
        now: { startTime })
    try await watch.run()
    return output.withLock { $0 }.split(separator: "\n").map(String.init)
}
