import BeaconCore
import Logging
import MQTTClient
import ServiceLifecycle
import Synchronization
import Timekeeping

/// The live aggregator: a swift-service-lifecycle `Service` that connects to the broker, feeds
/// `AggregatorCore` from it and publishes what the core decides (docs/MQTT.md's aggregator topics).
///
/// - Connects with the last will `offline` (retained) on `<root>/aggregator/status` and publishes
///   `online` at every (re)connect; after a reconnect it re-publishes its whole retained state.
/// - Subscribes to `<root>/config/beacons` (the operator's known beacons, merged with the file's:
///   `AggregatorKnownBeacons`; a rejected message is logged with the field it names, and the last
///   good list stays in force), `<root>/nodes/+/info` (with discovery on, node devices and the rooms of
///   the room sensors' options), `<root>/beacons/+/+`
///   (measurements), `<root>/nodes/+/status` (offline nodes are ignored), `<root>/locations/+` (its
///   own retained locations: restored at start, so a restart does not send everyone to `not_home`;
///   `RestoredLocationsFeed`) and, with discovery on, `<prefix>/status` (discovery is
///   re-sent when Home Assistant says `online`) and the node devices' connectivity configs the
///   broker kept (a node retired while the aggregator was down loses its device).
/// - Ticks the core on the injected clock's ticks (every `tickInterval` seconds live), and wakes
///   between them at the decider's next due time, so a switch is published when its dwell ends,
///   not up to a tick later.
/// - Malformed measurements are counted (`statistics`) and logged at most once a minute; so are
///   unknown beacons evicted by the `maxUnknownBeacons` cap.
/// - At graceful shutdown (SIGTERM/SIGINT through the `ServiceGroup`) or cancellation it
///   publishes `offline`, flushes and disconnects.
/// - With `failover` on, several instances run for one site: each listens and decides (a warm
///   standby) on a connection without a last will, and only the holder of the lease
///   (`AggregatorLeadership`) publishes, from a second connection whose last will is `offline`.
public final class AggregatorService: Service, Sendable {
    private enum Input: Sendable {
        case knownBeacons(MQTTMessage)
        case measurement(MQTTMessage)
        case foreign(MQTTMessage)
        case motion(MQTTMessage)
        case nodeStatus(MQTTMessage)
        case nodeInfo(MQTTMessage)
        case nodeDevice(MQTTMessage)
        case location(MQTTMessage)
        case homeAssistantStatus(MQTTMessage)
        case connection(MQTTConnectionEvent)
        case leaderConnection(MQTTConnectionEvent)
        case leadership(MQTTMessage)
        case tick(Instant)
        /// The decider's earliest due time has come (`AggregatorCore.nextDecisionDue()`).
        case decisionDue
        /// The client's unacknowledged messages fell to half the window: send what waits.
        case publishingRoom
        case shutdown
    }

    public let configuration: AggregatorConfiguration
    let clock: any ServiceClock
    let logger: Logger
    private let softwareVersion: String
    private let supportURL: String?
    private let reconnect: MQTTReconnectPolicy
    /// Writes every received measurement as a trace (`run --record`), when set.
    private let recorder: MeasurementRecorder?
    /// Writes every change of a room's motion beside it (`run --record` with `motion:`), when set.
    private let motionRecorder: MotionRecorder?
    let counters = Mutex(Statistics())
    /// Publications refused and events dropped: a line per 10 s each with the count, not one each.
    let publicationFailureLog = Mutex(RepeatedLogGate(interval: 10))
    let droppedEventLog = Mutex(RepeatedLogGate(interval: 10))
    private let leadershipRole = Mutex<AggregatorLeadership.Role?>(nil)
    /// QoS 1 messages its client may hold unacknowledged; beyond, a `PublicationBacklog` holds them.
    public let publishingWindow: Int
    /// Events that may wait while the broker is behind; more are dropped and counted.
    let backlogEventLimit: Int

    /// - Parameters:
    ///   - configuration: the validated settings of `run` (broker, root, decision, discovery, failover).
    ///   - clock: the time the decisions run on; tests inject one.
    ///   - logger: where the service logs.
    ///   - softwareVersion: shown in Home Assistant (discovery `origin.sw_version`).
    ///   - supportURL: the project's address for discovery `origin.support_url`, left out when nil.
    ///   - reconnect: the backoff between attempts to reach the broker.
    ///   - recorder: writes every received measurement as a trace (`run --record`), when set.
    ///   - motionRecorder: writes every change of a room's motion beside it, when set.
    ///   - publishingWindow: QoS 1 messages its client may hold unacknowledged (2,000); beyond that,
    ///     state waits coalesced per topic. Tests make it tiny.
    ///   - backlogEventLimit: events that may wait meanwhile (10,000); more are dropped and counted.
    public init(
        configuration: AggregatorConfiguration, clock: any ServiceClock = SystemClock(), logger: Logger,
        softwareVersion: String, supportURL: String? = nil, reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(),
        recorder: MeasurementRecorder? = nil, motionRecorder: MotionRecorder? = nil,
        publishingWindow: Int = 2_000, backlogEventLimit: Int = 10_000
    ) {
        self.publishingWindow = max(1, min(publishingWindow, 60_000))
        self.backlogEventLimit = max(0, backlogEventLimit)
        self.recorder = recorder
        self.motionRecorder = motionRecorder
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.softwareVersion = softwareVersion
        self.supportURL = supportURL
        self.reconnect = reconnect
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    /// With failover, this instance's role; nil without failover (it always publishes).
    public var role: AggregatorLeadership.Role? { leadershipRole.withLock { $0 } }

    /// The connection options this configuration gives.
    /// Without failover, the one connection (its last will `offline` on the status). With failover,
    /// `leader` false gives the listening connection (client id `<clientID>-<instance>`, no will)
    /// and `leader` true the publishing one (`<clientID>-<instance>-leader`, the will).
    public static func connectionOptions(
        for configuration: AggregatorConfiguration, reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(),
        leader: Bool = true
    ) -> MQTTConnectionOptions {
        var clientID = configuration.clientID
        if configuration.failover.enabled, let instance = configuration.failover.instance {
            clientID += "-\(instance)" + (leader ? "-leader" : "")
        }
        var options = MQTTConnectionOptions(
            host: configuration.broker.host, port: configuration.broker.port, clientID: clientID,
            keepAliveSeconds: configuration.keepAlive)
        if let username = configuration.username {
            options.credentials = MQTTCredentials(username: username, password: configuration.password)
        }
        if configuration.broker.usesTLS {
            options.tls = MQTTTLSConfiguration(
                caFile: configuration.caFile ?? AggregatorConfiguration.defaultCAFile,
                certificateFile: configuration.certificateFile, keyFile: configuration.keyFile)
        }
        if leader { options.lastWill = MQTTLastWill(topic: configuration.topics.aggregatorStatus, string: "offline") }
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
        core.servesDecisionsWhenDue = true
        core.roomMessageInterval = 1
        var leadership: AggregatorLeadership? = nil
        if configuration.failover.enabled, let instance = configuration.failover.instance {
            leadership = AggregatorLeadership(instance: instance, leaseTimeout: configuration.failover.leaseTimeout)
        }
        leadershipRole.withLock { $0 = leadership?.role }
        let connection = try MQTTConnection(
            options: Self.connectionOptions(for: configuration, reconnect: reconnect, leader: leadership == nil), logger: logger)
        let events = connection.events()
        // Every subscription hands its messages from libmosquitto's thread to the loop's inbox, in
        // the broker's order; a burst gathers for `ServiceInbox.batchWindow` and wakes the loop once.
        let inbox = ServiceInbox<Input>()
        connection.batchDeliveries(window: ServiceInbox<Input>.batchWindow) { inbox.wake() }
        try connection.setInflightWindow(publishingWindow)  // not 20 per round trip to the broker
        try connection.start()
        logger.info("aggregator starting", metadata: [
            "broker": "\(configuration.broker)", "root": "\(topics.root)",
            "instance": "\(configuration.failover.enabled ? configuration.failover.instance?.rawValue ?? "-" : "-")",
        ])
        for warning in configuration.warnings { logger.warning("configuration: \(warning)") }
        for warning in configuration.siteModelWarnings { logger.warning("site model: \(warning)") }
        if let model = configuration.siteModel {
            if model.decision == .physics {
                // learn judged this model no better than physics on its own recordings.
                logger.notice("the site model says physics decides better on the recordings it was learned from; deciding with physics",
                              metadata: ["rooms": "\(model.rooms.joined(separator: ","))"])
            } else {
                logger.info("deciding with a site model", metadata: [
                    "rooms": "\(model.rooms.joined(separator: ","))", "nodes": "\(model.nodes.joined(separator: ","))",
                ])
            }
        }
        if let recorder { logger.info("recording every measurement received", metadata: ["file": "\(recorder.path)"]) }
        restoreCalibration(into: &core)

        // The nodes' retained info first: with discovery their rooms are the room sensors' options
        // before restored beacons are announced, not added one by one after them.
        _ = try await connection.subscribe(topics.allNodeInfos) { inbox.post(.nodeInfo($0)) }
        // The operator's known beacons, relayed from now on: the broker sends the retained list
        // right after this SUBACK, so it is an input several round trips ahead of the retained
        // locations below, and a restored beacon is announced under its pushed id and name at
        // once rather than under its canonical id and then moved (a beacon the list renames later
        // is moved then: `AggregatorCore.applyPushedBeacons`).
        _ = try await connection.subscribe(topics.configBeacons) { inbox.post(.knownBeacons($0)) }
        // Our own retained locations next: the broker sends them right after this SUBACK, so they
        // are restored before most measurements arrive; then the subscription ends.
        try await RestoredLocationsFeed.subscribe(topics.location("+"), on: connection) { inbox.post(.location($0)) }
        _ = try await connection.subscribe(topics.allNodeStatuses) { inbox.post(.nodeStatus($0)) }
        _ = try await connection.subscribe(topics.allMeasurements, qos: .atMostOnce) { inbox.post(.measurement($0)) }
        var foreign = ForeignNodeFeed(configuration: configuration, known: core.knownBeacons, logger: logger, recorder: recorder)
        try await foreign.subscribe(on: connection) { inbox.post(.foreign($0)) }
        var motion = MotionFeed(configuration: configuration, logger: logger, recorder: motionRecorder)
        let motionSubscriptions = try await motion.subscribe(on: connection)
        // The node devices announced before: one whose node no longer has info or status was
        // retired while this aggregator was down, and is removed.
        if let discovery = core.discovery {
            _ = try await connection.subscribe(discovery.statusTopic) { inbox.post(.homeAssistantStatus($0)) }
            _ = try await connection.subscribe(discovery.nodeConnectivityConfigFilter) { if $0.retain { inbox.post(.nodeDevice($0)) } }
        }
        // One filter for status, lease, claims and the sync echo: one stream keeps the broker's
        // order, which the election relies on.
        var syncTopic = ""
        if let instance = leadership?.instance {
            syncTopic = AggregatorLease.syncTopic(topics, instance: instance)
            _ = try await connection.subscribe("\(topics.root)/aggregator/#") { inbox.post(.leadership($0)) }
        }

        let ticks = clock.ticks(every: configuration.tickInterval)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for feed in motionSubscriptions { group.addTask { for await message in feed { inbox.send(.motion(message)) } } }
                group.addTask { for await event in events { inbox.send(.connection(event)) } }
                group.addTask { for await time in ticks { inbox.send(.tick(time)) } }

                /// With failover: the connection with the last will, open while claiming or leading.
                var leaderConnection: MQTTConnection?
                // A flood is worth one line a minute, not one per message or evicted beacon.
                var malformedLog = RepeatedLogGate(interval: 60)
                var evictionLog = RepeatedLogGate(interval: 60)
                var evictionsNoted = 0
                // A calibration is logged when what it applies or rejects changed, not at every solve.
                var calibrationLogged: String?
                var calibrationSaveFailure: String?
                // The retained list comes again at every reconnect: the same bytes are not news.
                var lastKnownBeaconsPayload: [UInt8]?
                // What waits while the broker is behind, and whether a wake-up for room is set.
                var backlog = PublicationBacklog(eventLimit: backlogEventLimit)
                var roomAwaited = false
                // The wake-up set for the decider's earliest due time, and when.
                var dueAlarm: (at: Double, task: Task<Void, Never>)?
                var inputs = inbox.inputs()
                loop: while let next = await inputs.next() {
                    let now = clock.now()
                    var out: [AggregatorPublication] = []
                    var actions: [AggregatorLeadership.Action] = []
                    // Counted after publishing, so a test that sees the count finds the messages sent.
                    var counted: WritableKeyPath<Statistics, Int>?
                    switch next {
                    case .shutdown:
                        break loop
                    case .publishingRoom:
                        roomAwaited = false  // what waits goes out below
                    case .decisionDue:
                        dueAlarm = nil
                        out = core.decideDue(at: now)
                        counted = \.dueWakeUps
                    case .tick(let time):
                        motion.tick(into: &core, at: time)
                        out = core.tick(at: time) + foreign.tick(into: &core, at: time)
                        if let solved = core.takeSolvedCalibration() {
                            logCalibration(solved, applications: core.nodeCalibration.applications, logged: &calibrationLogged)
                            keepCalibration(solved, failure: &calibrationSaveFailure)
                        }
                        actions = leadership?.tick(at: time) ?? []
                        counted = \.ticks
                        counters.withLock { $0.foreign = foreign.statistics }
                        logAtTick(time, evicted: core.evictedBeacons, noted: &evictionsNoted, evictionLog: &evictionLog,
                                  malformedLog: &malformedLog)
                    case .connection(.connected(_, let isReconnect)):
                        if leadership == nil {
                            publish([.retained(topics.aggregatorStatus, "online")], on: connection)
                            out = core.announceAggregator()
                            // The broker may have lost what we hold (restarted without persistence).
                            if isReconnect { out += core.retainedState() + foreign.allSummaries() }
                        } else {
                            // Sent after the SUBSCRIBEs of this connection, so it comes back after
                            // every retained message of the leadership topics.
                            publish([AggregatorPublication(topic: syncTopic, payload: "sync", retain: false)], on: connection)
                        }
                        logger.info("aggregator connected", metadata: ["reconnect": "\(isReconnect)"])
                    case .connection(.connectionLost(let error)):
                        logger.warning("aggregator lost the broker", metadata: ["error": "\(error.message)"])
                        leadership?.connectionLost()  // the sync at the reconnect settles the role
                    case .connection(.connectFailed(let error, let retryIn)):
                        logger.warning("aggregator cannot connect", metadata: ["error": "\(error.message)", "retryIn": "\(retryIn)"])
                    case .connection(.stopped):
                        break loop
                    case .leaderConnection(.connected(_, let isReconnect)):
                        // The broker may have lost what we hold (restarted without persistence).
                        if isReconnect, let lease = leadership?.currentLease, let leaderConnection {
                            // The lease goes at once, never behind a backlog of state.
                            publish([.retained(AggregatorLease.leaderTopic(topics), lease.json(at: now)),
                                     .retained(topics.aggregatorStatus, "online")], on: leaderConnection)
                            out = core.retainedState() + foreign.allSummaries()
                        }
                    case .leaderConnection(.connectionLost(let error)):
                        logger.warning("aggregator lost the broker (leader connection)", metadata: ["error": "\(error.message)"])
                        leadership?.connectionLost()
                        publish([AggregatorPublication(topic: syncTopic, payload: "sync", retain: false)], on: connection)
                    case .leaderConnection:
                        break
                    case .leadership(let message):
                        guard var machine = leadership else { continue }
                        actions = machine.receive(topic: message.topic, payload: message.payload, topics: topics, syncTopic: syncTopic, at: now)
                        leadership = machine
                    case .knownBeacons(let message):
                        counted = \.pushedBeaconLists
                        if message.payload != lastKnownBeaconsPayload {
                            lastKnownBeaconsPayload = message.payload
                            out = applyKnownBeacons(message.payload, to: &core)
                            foreign.knownBeaconsChanged(core, payload: message.payload)
                        }
                    case .measurement(let message):
                        guard let topicNode = topics.measurementTopicNode(message.topic) else { continue }
                        do {
                            let measurement = try ReceivedMeasurement(payload: message.payload, topicNode: topicNode)
                            recorder?.record(measurement, at: now)
                            out = core.receive(measurement, at: now)
                            for node in core.takeUnknownNodes() {
                                logger.notice("site model: node not in the model, its measurements are left to the physics decision",
                                              metadata: ["node": "\(node)"])
                            }
                            let absent = core.takeAbsentNodes()
                            if !absent.isEmpty {
                                logger.warning("site model: its nodes not heard from (off?); the model decides with the others and takes each in once it is heard or online", metadata: ["nodes": "\(absent.joined(separator: ","))"])
                            }
                            counted = \.measurements
                        } catch {
                            counted = \.malformedMeasurements
                            if let malformed = malformedLog.summary(at: now) {
                                logger.warning("malformed measurements ignored", metadata: [
                                    "topic": "\(message.topic)", "error": "\(error)", "count": "\(malformed.count)",
                                    "seconds": "\(Int(malformed.seconds.rounded()))",
                                ])
                            }
                        }
                    case .foreign(let message):
                        out = foreign.receive(message, into: &core, at: now)
                        counters.withLock { $0.foreign = foreign.statistics }
                    case .motion(let message):
                        motion.receive(message, into: &core, at: now)
                        counters.withLock { $0.motion = motion.statistics }
                    case .nodeStatus(let message):
                        guard let node = topics.nodeOfStatusTopic(message.topic) else { continue }
                        switch message.payloadString {
                        case "online": out = core.nodeStatus(node: node, online: true, at: now)
                        case "offline": out = core.nodeStatus(node: node, online: false, at: now)
                        default: continue
                        }
                        counted = \.nodeStatuses
                    case .nodeInfo(let message):
                        guard let node = topics.nodeOfInfoTopic(message.topic) else { continue }
                        out = core.nodeInfo(node: node, payload: message.payload)
                        counted = \.nodeInfos
                    case .nodeDevice(let message):
                        // Only what the broker kept from before; our own configs come back unretained.
                        guard message.retain, let node = core.discovery?.node(ofConnectivityConfigTopic: message.topic)
                        else { continue }
                        core.retainedNodeDevice(node: node, payload: message.payload, at: now)
                    case .location(let message):
                        // Only what the broker kept from before (retain flag set); our own live
                        // publications (or the leader's) come back without it.
                        guard message.retain, let location = BeaconLocation(retainedPayload: message.payload) else { continue }
                        let before = core.location(of: location.beacon)
                        out = core.restore(location, at: now)
                        if before == nil, core.location(of: location.beacon) != nil { counted = \.restoredLocations }
                    case .homeAssistantStatus(let message):
                        if message.payloadString == "online" { out = core.discoveryMessages() }
                    }
                    // A standby decides as the leader does (warm) but sends nothing. A leader whose
                    // connection is down sends nothing either: what it would queue could reach the
                    // broker after another instance took over.
                    var publisher: MQTTConnection?
                    if leadership == nil {
                        publisher = connection
                    } else if leadership?.isLeading == true, let leaderConnection {
                        if leaderConnection.state == .connected {
                            publisher = leaderConnection
                        } else {
                            leadership?.connectionLost()
                            actions = []
                            publish([AggregatorPublication(topic: syncTopic, payload: "sync", retain: false)], on: connection)
                        }
                    }
                    sendOrHold(out, backlog: &backlog, on: publisher, roomAwaited: &roomAwaited) { publisher, half in
                        group.addTask {
                            await publisher.pendingMessages(atMost: half)
                            inbox.send(.publishingRoom)
                        }
                    }
                    for action in actions {
                        switch action {
                        case .claim(let lease):
                            if leaderConnection == nil {
                                leaderConnection = openLeaderConnection(group: &group, inbox: inbox)
                            }
                            logger.info("aggregator claims the lead", metadata: ["term": "\(lease.term)"])
                            if let leaderConnection {
                                publish([.retained(AggregatorLease.claimTopic(topics), lease.json(at: now))], on: leaderConnection)
                            }
                        case .lead(let lease), .renew(let lease):
                            guard let leaderConnection else { continue }
                            var messages = [AggregatorPublication.retained(AggregatorLease.leaderTopic(topics), lease.json(at: now))]
                            if case .lead = action {
                                logger.notice("aggregator leads", metadata: ["term": "\(lease.term)"])
                                messages += [.retained(topics.aggregatorStatus, "online")]
                                counters.withLock { $0.termsLed += 1 }
                            }
                            // The lease at once; the state behind what may wait.
                            publish(messages, on: leaderConnection)
                            if case .lead = action {
                                _ = send(core.retainedState() + foreign.allSummaries(), backlog: &backlog, on: leaderConnection)
                            }
                        case .stepDown:
                            backlog.removeAll()
                            noteBacklog(backlog)
                            logger.notice("aggregator follows", metadata: ["term": "\(leadership?.term ?? 0)"])
                            counters.withLock { $0.stepDowns += 1 }
                            if let closing = leaderConnection {
                                leaderConnection = nil
                                group.addTask { await closing.disconnect(flushTimeout: .seconds(2)) }
                            }
                        }
                    }
                    if leadership != nil { leadershipRole.withLock { $0 = leadership?.role } }
                    // Wake at the earliest due decision, unless already set for it or sooner; once per batch.
                    if inputs.tookAll, let due = core.nextDecisionDue(), due.seconds < dueAlarm?.at ?? .infinity {
                        dueAlarm?.task.cancel()
                        let clock = self.clock
                        dueAlarm = (due.seconds, Task {
                            await clock.wait(until: due)
                            if !Task.isCancelled { inbox.send(.decisionDue) }
                        })
                    }
                    if let counted { counters.withLock { $0[keyPath: counted] += 1 } }
                }
                dueAlarm?.task.cancel()
                noteUnsent(backlog)
                // Shutting down: the publisher says `offline` (a leader also gives up its lease, so
                // a standby takes over at once), flushes and disconnects (the broker then drops
                // the last will).
                if leadership == nil {
                    publish([.retained(topics.aggregatorStatus, "offline")], on: connection)
                } else if let leaderConnection {
                    if leadership?.isLeading == true {
                        publish([.retained(topics.aggregatorStatus, "offline"), .clear(AggregatorLease.leaderTopic(topics))],
                                on: leaderConnection)
                    }
                    await leaderConnection.disconnect()
                }
                await connection.disconnect()
                inbox.finish()
                group.cancelAll()
                logger.info("aggregator stopped")
            }
        } onGracefulShutdown: {
            inbox.send(.shutdown)
        }
    }

    /// The publishing connection of a failover instance (its last will `offline` on the status),
    /// started at once; its events join the service's inputs.
    private func openLeaderConnection(
        group: inout TaskGroup<Void>, inbox: ServiceInbox<Input>
    ) -> MQTTConnection? {
        do {
            let leader = try MQTTConnection(
                options: Self.connectionOptions(for: configuration, reconnect: reconnect, leader: true), logger: logger)
            try leader.setInflightWindow(publishingWindow)
            let events = leader.events()
            group.addTask { for await event in events { inbox.send(.leaderConnection(event)) } }
            try leader.start()
            return leader
        } catch {
            logger.error("aggregator cannot open its leader connection", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
