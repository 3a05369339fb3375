import BeaconCore
import Logging
import MQTTClient
import ServiceLifecycle
import Synchronization

/// The live aggregator: a swift-service-lifecycle `Service` that connects to the broker, feeds
/// `AggregatorCore` from it and publishes what the core decides (MQTT.md's aggregator topics).
///
/// - Connects with the last will `offline` (retained) on `<root>/aggregator/status` and publishes
///   `online` at every (re)connect; after a reconnect it re-publishes its whole retained state.
/// - Subscribes to `<root>/beacons/+/+` (measurements), `<root>/nodes/+/status` (offline nodes are
///   ignored), `<root>/locations/+` (its own retained locations: restored at start, so a restart
///   does not send everyone to `not_home`) and, with discovery on, `<prefix>/status` (discovery is
///   re-sent when Home Assistant says `online`).
/// - Ticks the core on the injected clock's ticks (every `tickInterval` seconds live).
/// - Malformed measurements are counted (`statistics`) and logged at most once a minute.
/// - At graceful shutdown (SIGTERM/SIGINT through the `ServiceGroup`) or cancellation it
///   publishes `offline`, flushes and disconnects.
public final class AggregatorService: Service, Sendable {
    /// Counters, for tests and logs.
    public struct Statistics: Sendable, Hashable {
        /// Measurement messages that could not be parsed.
        public var malformedMeasurements = 0
        /// Measurements used.
        public var measurements = 0
        /// Node status messages (`online`/`offline`) handled.
        public var nodeStatuses = 0
        /// Locations restored from retained topics.
        public var restoredLocations = 0
        /// Ticks handled (a test that moves the clock waits for this).
        public var ticks = 0
        /// Publications libmosquitto refused (queue full, no connection for QoS 0).
        public var failedPublications = 0
    }

    private enum Input: Sendable {
        case measurement(MQTTMessage)
        case nodeStatus(MQTTMessage)
        case location(MQTTMessage)
        case homeAssistantStatus(MQTTMessage)
        case connection(MQTTConnectionEvent)
        case tick(Instant)
        case shutdown
    }

    public let configuration: AggregatorConfiguration
    private let clock: any AggregatorClock
    private let logger: Logger
    private let softwareVersion: String
    private let supportURL: String?
    private let reconnect: MQTTReconnectPolicy
    private let counters = Mutex(Statistics())

    /// - Parameters:
    ///   - softwareVersion: shown in Home Assistant (discovery `origin.sw_version`).
    ///   - supportURL: the project's address for discovery `origin.support_url`, left out when nil.
    public init(
        configuration: AggregatorConfiguration, clock: any AggregatorClock = SystemAggregatorClock(), logger: Logger,
        softwareVersion: String, supportURL: String? = nil, reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy()
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.softwareVersion = softwareVersion
        self.supportURL = supportURL
        self.reconnect = reconnect
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    /// The connection options this configuration gives.
    public static func connectionOptions(
        for configuration: AggregatorConfiguration, reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy()
    ) -> MQTTConnectionOptions {
        var options = MQTTConnectionOptions(
            host: configuration.broker.host, port: configuration.broker.port, clientID: configuration.clientID)
        if let username = configuration.username {
            options.credentials = MQTTCredentials(username: username, password: configuration.password)
        }
        if configuration.broker.usesTLS {
            options.tls = MQTTTLSConfiguration(
                caFile: configuration.caFile ?? AggregatorConfiguration.defaultCAFile,
                certificateFile: configuration.certificateFile, keyFile: configuration.keyFile)
        }
        options.lastWill = MQTTLastWill(topic: configuration.topics.aggregatorStatus, string: "offline")
        options.reconnect = reconnect
        // A start or reconnect publishes the whole retained state at once (up to 7 QoS 1 messages
        // per beacon, discovery included): with the default bound of 1,000 a site of a few hundred
        // beacons lost most of it (the fleet load test). 65,000 is the client's ceiling.
        options.maxPendingMessages = 65_000
        return options
    }

    public func run() async throws {
        let topics = configuration.topics
        var core = AggregatorCore(configuration: configuration, softwareVersion: softwareVersion, supportURL: supportURL)
        let connection = try MQTTConnection(
            options: Self.connectionOptions(for: configuration, reconnect: reconnect), logger: logger)
        let events = connection.events()
        try connection.start()
        logger.info("aggregator starting", metadata: ["broker": "\(configuration.broker)", "root": "\(topics.root)"])

        // Our own retained locations first: the broker sends them right after this SUBACK, so they
        // are restored before most measurements arrive.
        let locations = try await connection.subscribe(topics.location("+"))
        let statuses = try await connection.subscribe(topics.allNodeStatuses)
        let measurements = try await connection.subscribe(topics.allMeasurements, qos: .atMostOnce)
        var homeAssistant: MQTTSubscription?
        if let discovery = core.discovery { homeAssistant = try await connection.subscribe(discovery.statusTopic) }

        let (inputs, input) = AsyncStream<Input>.makeStream()
        let ticks = clock.ticks(every: configuration.tickInterval)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await message in locations { input.yield(.location(message)) } }
                group.addTask { for await message in statuses { input.yield(.nodeStatus(message)) } }
                group.addTask { for await message in measurements { input.yield(.measurement(message)) } }
                if let homeAssistant = homeAssistant {
                    group.addTask { for await message in homeAssistant { input.yield(.homeAssistantStatus(message)) } }
                }
                group.addTask { for await event in events { input.yield(.connection(event)) } }
                group.addTask { for await time in ticks { input.yield(.tick(time)) } }

                var lastMalformedLog: Instant?
                var malformedSinceLog = 0
                loop: for await next in inputs {
                    let now = clock.now()
                    var out: [AggregatorPublication] = []
                    // Counted after publishing, so a test that sees the count finds the messages sent.
                    var counted: WritableKeyPath<Statistics, Int>?
                    switch next {
                    case .shutdown:
                        break loop
                    case .tick(let time):
                        out = core.tick(at: time)
                        counted = \.ticks
                    case .connection(.connected(_, let isReconnect)):
                        out = [.retained(topics.aggregatorStatus, "online")]
                        if isReconnect { out += core.retainedState() }
                        logger.info("aggregator connected", metadata: ["reconnect": "\(isReconnect)"])
                    case .connection(.connectionLost(let error)):
                        logger.warning("aggregator lost the broker", metadata: ["error": "\(error.message)"])
                    case .connection(.connectFailed(let error, let retryIn)):
                        logger.warning("aggregator cannot connect", metadata: ["error": "\(error.message)", "retryIn": "\(retryIn)"])
                    case .connection(.stopped):
                        break loop
                    case .measurement(let message):
                        guard let parts = topics.measurementTopicParts(message.topic) else { continue }
                        do {
                            let measurement = try ReceivedMeasurement(payload: message.payload, topicNode: parts.node)
                            out = core.receive(measurement, at: now)
                            counted = \.measurements
                        } catch {
                            counted = \.malformedMeasurements
                            malformedSinceLog += 1
                            if lastMalformedLog.map({ now.since($0) >= 60 }) ?? true {
                                logger.warning("malformed measurements ignored", metadata: [
                                    "topic": "\(message.topic)", "error": "\(error)", "count": "\(malformedSinceLog)",
                                ])
                                lastMalformedLog = now
                                malformedSinceLog = 0
                            }
                        }
                    case .nodeStatus(let message):
                        guard let node = topics.nodeOfStatusTopic(message.topic) else { continue }
                        switch message.payloadString {
                        case "online": out = core.nodeStatus(node: node, online: true, at: now)
                        case "offline": out = core.nodeStatus(node: node, online: false, at: now)
                        default: continue
                        }
                        counted = \.nodeStatuses
                    case .location(let message):
                        // Only what the broker kept from before (retain flag set); our own live
                        // publications come back without it.
                        guard message.retain, let location = BeaconLocation(retainedPayload: message.payload) else { continue }
                        let before = core.location(of: location.beacon)
                        out = core.restore(location, at: now)
                        if before == nil, core.location(of: location.beacon) != nil { counted = \.restoredLocations }
                    case .homeAssistantStatus(let message):
                        if message.payloadString == "online" { out = core.discoveryMessages() }
                    }
                    publish(out, on: connection)
                    if let counted { counters.withLock { $0[keyPath: counted] += 1 } }
                }
                // Shutting down: say so, flush, disconnect (the broker then drops the last will).
                publish([.retained(topics.aggregatorStatus, "offline")], on: connection)
                await connection.disconnect()
                input.finish()
                group.cancelAll()
                logger.info("aggregator stopped")
            }
        } onGracefulShutdown: {
            input.yield(.shutdown)
        }
    }

    private func publish(_ publications: [AggregatorPublication], on connection: MQTTConnection) {
        for publication in publications {
            do {
                try connection.publish(
                    topic: publication.topic, string: publication.payload,
                    qos: publication.qos >= 1 ? .atLeastOnce : .atMostOnce, retain: publication.retain)
            } catch {
                counters.withLock { $0.failedPublications += 1 }
                logger.warning("aggregator publication failed", metadata: ["topic": "\(publication.topic)", "error": "\(error.message)"])
            }
        }
    }
}
