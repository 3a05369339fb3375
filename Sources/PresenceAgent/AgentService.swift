import BeaconCore
import BluetoothHCI
import Dispatch
import Logging
import MQTTClient
import ServiceLifecycle
import Synchronization
import Timekeeping

/// `presence-agent run`: a source, the agent core and MQTT wired together as one Service.
///
/// Threads: the source (a capture, a serial line, a socket, the simulator) is read on a thread of
/// its own, because its reads block; it hands batches of advertisements to the service's single
/// async loop through a bounded stream (a semaphore keeps a fast replay from running ahead of
/// publishing). The loop alone owns the `AgentCore`, so the core needs no locks. MQTT callbacks
/// arrive on the client's thread and reach the loop through the same stream.
///
/// A lost broker does not stop scanning or region monitoring: QoS 1 publications (events, states,
/// statuses) queue in the client's bounded outbox and go out after the reconnect; QoS 0
/// measurements are dropped and counted; the retained state is published again on every connect.
public final class AgentService: Service {
    public let configuration: AgentConfiguration.Resolved
    let logger: Logger
    let version: String
    /// The agent's one clock: the sources read and wait on it, the loop beats on it.
    let clock: any ServiceClock
    /// A broker that refuses this account refuses every publication: one line a minute, not one each.
    private let refusalLog = Mutex(RepeatedLogGate(interval: 60))
    /// The decoded advertisements are handed over in batches of at most this many pending.
    static let pendingBatchLimit = 64
    /// What the loop has published and handled (telemetry's `published`, and the batches below).
    private let counters = Counters()
    /// Seconds between returning freed heap to the system, at every clock beat: the heap's free
    /// space is dirtied again between trims (ranging lists and their copies in libmosquitto,
    /// a few MB a second with 10,000 beacons), so resident memory saws up from one trim to the
    /// next; trimming each 0.5 s instead of each 2 s took about 1 MB off its median. With 10,000
    /// beacons heard each second the trims did not show in the agent's CPU time (20 s runs, within
    /// the noise of ±5 %); at 2 s they were under 0.5 % of its CPU samples (perf).
    static let memoryReliefInterval = clockBeat
    /// Seconds between the loop's beats on the clock (telemetry, memory relief, the clock after a capture).
    static let clockBeat = 0.5
    /// How long the broker keeps this node's session while it is away (one week): the configuration
    /// messages sent meanwhile, a clearing one included, wait for the node there. A clean session
    /// would hear only what is still retained when it returns, and a configuration cleared while the
    /// node was off would never reach it: it would run on with the copy in its state directory.
    static let sessionExpirySeconds: UInt32 = 7 * 24 * 3600

    enum Input: Sendable {
        case advertisements([DecodedAdvertisement], now: Instant)
        case sourceEnded(now: Instant)
        case sourceFailed(String)
        /// The radio's state changed or it has something to say (stopped, retrying, hearing again).
        case radio(RadioStatus?, [RadioNotice])
        case configuration(topic: String, payload: [UInt8])
        case connected
        case clock
        case stop
    }

    public init(
        configuration: AgentConfiguration.Resolved, logger: Logger, version: String,
        clock: any ServiceClock = SystemClock()
    ) {
        self.configuration = configuration
        self.logger = logger
        self.version = version
        self.clock = clock
    }

    /// Batches the source handed to the loop that it has not yet handled (folded in, published).
    /// A source hands its batch over before it waits again: a test on a manual clock whose sources
    /// are asleep waits for 0, and then all they heard is published.
    public var unhandledSourceBatches: Int { counters.unhandledBatches.load(ordering: .acquiring) }
    /// Publications handed to the broker client so far (telemetry's `published`).
    public var publishedCount: Int { counters.published.load(ordering: .relaxed) }

    public func run() async throws {
        var settings = configuration.core
        let topics = settings.topics
        let node = settings.node
        let startedAt = clock.now()

        // 1. The last good configuration, before any broker is reachable.
        let stateDirectory = StateDirectory(path: configuration.stateDir)
        var persistent = true
        do {
            try stateDirectory.prepare()
        } catch {
            persistent = false
            logger.error("state directory unusable; configuration is kept in memory only", metadata: ["reason": "\(error)"])
        }
        let loaded = stateDirectory.load(AgentCore.StateFile.all + [InstallCalibrationFile.name])
        for problem in loaded.problems { logger.error("cannot read a state file", metadata: ["file": "\(problem)"]) }
        // `presence-agent calibrate`'s reference, unless the operator set the offset.
        let calibrationLog = InstallCalibrationFile.apply(
            loaded.files[InstallCalibrationFile.name], to: &settings, operatorOffset: configuration.operatorRSSIOffset)

        // 2. The source: opened first, so a wrong device fails the start with a clear message.
        var feedOptions = FeedOptions()
        feedOptions.speed = configuration.speed
        feedOptions.simulatedNode = node.rawValue
        feedOptions.clock = clock
        feedOptions.advertising = configuration.nodeBeacon
        let feed = try AdvertisementFeeds.open(configuration.source, options: feedOptions)
        // The agent's clock starts where the source's does (a capture's first timestamp, the
        // simulator's start, a radio's wall clock), so the restored state and the configuration
        // applied before the first advertisement are dated on the clock the replay then runs on.
        let agentStart = feed.now
        var core = AgentCore(settings: settings, persisted: loaded.files, at: agentStart)
        core.hint.source = configuration.source.description
        for file in core.rejectedStateFiles {
            if let aside = stateDirectory.setAside(file, at: clock.now().seconds) {
                logger.error("a saved configuration no longer validates; kept aside", metadata: ["file": "\(aside)"])
            }
        }
        let recorder = try configuration.record.map { (path) throws(AgentConfiguration.Error) in try TraceFileWriter(path: path) }
        defer { recorder?.close() }
        perform((calibrationLog.map { [$0] } ?? []) + core.startupLog, connection: nil, state: stateDirectory, persistent: persistent)

        // 3. MQTT, with the last will said before connecting.
        var options = MQTTConnectionOptions(
            host: configuration.broker.host, port: configuration.broker.port, clientID: configuration.clientID,
            credentials: configuration.credentials, tls: configuration.tls,
            lastWill: MQTTLastWill(topic: topics.nodeStatus(node), string: "offline", qos: .atLeastOnce, retain: true))
        // Every connect re-publishes the whole retained state, one QoS 1 state per region: with
        // 1,000 regions a 1,000-message outbox dropped states at start. 20,000 holds the state of
        // 10,000 regions twice over; a pending message costs only its bytes while it waits.
        options.maxPendingMessages = 20_000
        // MQTT 5: a broker that refuses a publication (its ACL) says so in the PUBACK, and the agent
        // logs it; with 3.1.1 mosquitto acknowledges a refused message as if it were accepted.
        options.protocolVersion = .v5
        options.cleanSession = false
        options.sessionExpirySeconds = Self.sessionExpirySeconds
        let connection = try MQTTConnection(options: options, logger: logger)
        let subscriptions = try await withThrowingTaskGroup(of: MQTTSubscription.self) { group in
            for topic in core.configurationTopics { group.addTask { try await connection.subscribe(topic, qos: .atLeastOnce) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Our own status topic: when our `online` comes back, every retained configuration message
        // (sent at SUBACK, before it, on the same connection) has arrived.
        let ownStatus = try await connection.subscribe(topics.nodeStatus(node), qos: .atLeastOnce)
        let events = connection.events()
        try connection.start()

        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        let pending = DispatchSemaphore(value: Self.pendingBatchLimit)
        let stopRequested = Atomic<Bool>(false)
        let counters = self.counters

        // The source's thread.
        let sourceDone = DispatchSemaphore(value: 0)
        // A replay waits for the retained configuration (at most `configurationWait` seconds), or a
        // fast capture would be over before its regions arrive. A radio never waits for the broker.
        let startGate = DispatchSemaphore(value: 0)
        let waitsForConfiguration: Bool
        switch configuration.source {
        case .btsnoop, .simulate: waitsForConfiguration = true
        case .hciSocket, .uart: waitsForConfiguration = false
        }
        let configurationWait = configuration.configurationWait
        let handOver = SourceHandOver(feed)
        let started = DetachedThread.start {
            let feed = handOver.feed
            if waitsForConfiguration { _ = startGate.wait(timeout: .now() + configurationWait) }
            defer {
                feed.close()
                sourceDone.signal()
            }
            var radio = feed.radio
            continuation.yield(.radio(radio, feed.takeNotices()))
            while !stopRequested.load(ordering: .relaxed) {
                var batch: [DecodedAdvertisement] = []
                do {
                    let more = try feed.poll(timeout: 0.2) { advertisement in
                        // The core reads the decoded beacon, address and RSSI, never the raw bytes:
                        // those are a slice of the source's read buffer, and a batch waiting in the
                        // stream would keep every buffer it was decoded from alive (a capture's
                        // parser then copies a fresh one at each read).
                        var decoded = advertisement
                        decoded.report.data = []
                        batch.append(decoded)
                    }
                    let notices = feed.takeNotices()
                    if !notices.isEmpty || feed.radio != radio {
                        radio = feed.radio
                        continuation.yield(.radio(radio, notices))
                    }
                    pending.wait()
                    counters.unhandledBatches.add(1, ordering: .releasing)
                    continuation.yield(.advertisements(batch, now: feed.now))
                    if !more {
                        continuation.yield(.sourceEnded(now: feed.now))
                        return
                    }
                } catch {
                    continuation.yield(.sourceFailed("\(error)"))
                    return
                }
            }
        }
        guard started else {
            feed.close()
            await connection.disconnect(flushTimeout: .zero)
            throw SourceThreadRefused()
        }

        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    if case .connected = event { continuation.yield(.connected) }
                    if case .stopped = event { return }
                }
            }
            for subscription in subscriptions {
                group.addTask {
                    for try await message in subscription {
                        continuation.yield(.configuration(topic: message.topic, payload: message.payload))
                        counters.forwarded.add(1, ordering: .releasing)
                    }
                }
            }
            group.addTask {
                for try await message in ownStatus {
                    counters.forwarded.add(1, ordering: .releasing)
                    guard !message.retain, message.payloadString == "online" else { continue }
                    // Each subscription has its own task, so a configuration message received before
                    // the echo may not be in the loop's stream yet: open the gate only once every
                    // message the client had received by now has been handed on.
                    let received = connection.statistics.receivedMessages
                    while counters.forwarded.load(ordering: .acquiring) < received && !Task.isCancelled { await Task.yield() }
                    startGate.signal()
                }
            }
            let beats = clock.ticks(every: Self.clockBeat)
            group.addTask {
                // The clock's beat: telemetry, and the agent's clock once a capture has ended.
                for await _ in beats { continuation.yield(.clock) }
            }

            await withGracefulShutdownHandler {
                await self.loop(
                    inputs: inputs, core: &core, connection: connection, pending: pending, state: stateDirectory,
                    persistent: persistent, startedAt: startedAt, agentStart: agentStart, counters: counters,
                    recorder: recorder)
            } onGracefulShutdown: {
                continuation.yield(.stop)
            }
            // Region states changed since the last tick are saved before the process ends.
            self.perform(core.pendingPersistence(), connection: nil, state: stateDirectory, persistent: persistent)

            // 4. Shutting down: stop the source, say offline, deliver what is queued, disconnect.
            stopRequested.store(true, ordering: .relaxed)
            pending.signal()
            continuation.finish()
            _ = try? connection.publish(topic: topics.nodeStatus(node), string: "offline", qos: .atLeastOnce, retain: true)
            await connection.disconnect(flushTimeout: .seconds(5))
            group.cancelAll()
        }
        // The source thread stops within one poll; scanning is switched off by `feed.close()` there.
        sourceDone.wait()
        // libdispatch traps when a semaphore is freed below its initial value: batches left unread
        // in the stream at shutdown still hold their slots.
        for _ in 0..<Self.pendingBatchLimit { pending.signal() }
    }

    /// Moves the feed to the source thread.
    /// @unchecked: after the hand-over only that thread touches the feed; this task never does again.
    final class SourceHandOver: @unchecked Sendable {
        let feed: any AdvertisementFeed
        init(_ feed: any AdvertisementFeed) { self.feed = feed }
    }

    final class Counters: Sendable {
        let published = Atomic<Int>(0)
        let dropped = Atomic<Int>(0)
        /// Messages handed from the subscriptions to the loop's stream.
        let forwarded = Atomic<Int>(0)
        /// Batches handed from the source to the loop's stream and not yet handled there.
        let unhandledBatches = Atomic<Int>(0)
    }

    private func loop(
        inputs: AsyncStream<Input>, core: inout AgentCore, connection: MQTTConnection, pending: DispatchSemaphore,
        state: StateDirectory, persistent: Bool, startedAt: Instant, agentStart: Instant, counters: Counters,
        recorder: TraceFileWriter?
    ) async {
        let topics = configuration.core.topics
        let node = configuration.core.node
        /// The agent's clock: the source's time (a capture's timestamps, or the wall clock).
        var now = agentStart
        var lastTick: Instant?
        var ended: (at: Instant, wall: Double)?
        var lastTelemetry = clock.now().seconds
        var advertsSinceTelemetry = 0
        var recordFailureLogged = false
        /// Freed heap goes back to the system every `memoryReliefInterval` seconds of wall clock, and
        /// once when a capture has ended (its burst is over).
        var lastMemoryRelief = clock.now().seconds
        var relievedAfterEnd = false
        /// The radio's state for telemetry (nil for a capture or the simulator).
        var radio: RadioStatus?
        /// Publications the client's full out-queue refused: one line per 10 s with the count, not
        /// one per publication (under overload every publication is refused).
        var queueFullLog = RepeatedLogGate(interval: 10)
        func logQueueFull(_ summary: RepeatedLogGate.Summary?) {
            guard let summary else { return }
            logger.warning("MQTT out-queue full: publications dropped", metadata: [
                "dropped": "\(summary.count)", "seconds": "\(Int(summary.seconds.rounded()))",
            ])
        }

        func publishRetainedState() {
            send(AgentPublication(topic: topics.nodeStatus(node), text: "online", qos: .atLeastOnce, retain: true))
            sendInfo()
            for publication in core.retainedPublications() { send(publication) }
        }
        func sendInfo() {
            let info = AgentInfo.json(
                node: node, room: core.room, version: version, source: configuration.source.description, startedAt: startedAt,
                configRevisionJSON: core.configRevisionJSON, nodeBeacon: configuration.nodeBeacon, advertising: radio?.advertising,
                rssiOffset: (core.effective.tracking.distance.rssiOffset, core.rssiOffsetSource))
            send(AgentPublication(topic: topics.nodeInfo(node), text: info, qos: .atLeastOnce, retain: true))
        }
        func send(_ publication: AgentPublication) {
            do {
                let handed = try connection.publish(
                    topic: publication.topic, payload: publication.payload,
                    qos: publication.qos == .atLeastOnce ? .atLeastOnce : .atMostOnce, retain: publication.retain)
                counters.published.add(1, ordering: .relaxed)
                if publication.qos == .atLeastOnce { reportRefusal(of: handed, topic: publication.topic) }
            } catch {
                counters.dropped.add(1, ordering: .relaxed)
                // A QoS 0 measurement while disconnected is dropped by design (the loss of the
                // connection is logged once); a full out-queue is news.
                if case .queueFull = error.code { logQueueFull(queueFullLog.summary(at: clock.now())) }
            }
        }
        func tick(to time: Instant) {
            if let last = lastTick, time - last < 1 { return }
            lastTick = time
            perform(core.tick(at: time), connection: connection, state: state, persistent: persistent, recorder: recorder, send: send)
        }

        for await input in inputs {
            switch input {
            case .advertisements(let batch, let sourceNow):
                for advertisement in batch {
                    tick(to: advertisement.time)
                    perform(core.observe(advertisement), connection: connection, state: state, persistent: persistent, recorder: recorder, send: send)
                }
                advertsSinceTelemetry += batch.count
                now = max(now, sourceNow)
                tick(to: now)
                pending.signal()
                counters.unhandledBatches.subtract(1, ordering: .releasing)
            case .sourceEnded(let at):
                logger.info("the source ended", metadata: ["source": "\(configuration.source)"])
                if configuration.exitAtEnd { return }
                ended = (max(now, at), clock.now().seconds)
            case .sourceFailed(let message):
                logger.error("the source failed", metadata: ["reason": "\(message)"])
                if configuration.exitAtEnd { return }
                ended = (now, clock.now().seconds)
            case .configuration(let topic, let payload):
                let actions = core.receiveConfiguration(topic: topic, payload: payload, at: now)
                perform(actions, connection: connection, state: state, persistent: persistent, recorder: recorder, send: send)
                sendInfo()
            case .radio(let status, let notices):
                let advertisingChanged = status?.advertising != radio?.advertising
                radio = status
                // The info names the node beacon with its state: said again when that changes.
                if advertisingChanged { sendInfo() }
                for notice in notices {
                    switch notice.level {
                    case .info: logger.info("\(notice.message)", metadata: ["source": "\(configuration.source)"])
                    case .warning: logger.warning("\(notice.message)", metadata: ["source": "\(configuration.source)"])
                    }
                }
            case .connected:
                logger.info("connected to the broker", metadata: ["broker": "\(configuration.broker)"])
                publishRetainedState()
                // Measurements are QoS 0: those published before this connect are lost.
                for publication in core.currentMeasurements(at: now) { send(publication) }
            case .clock:
                recorder?.flush()
                logQueueFull(queueFullLog.flush(at: clock.now()))
                if let failure = recorder?.failure, !recordFailureLogged {
                    logger.error("cannot record", metadata: ["reason": "\(failure)"])
                    recordFailureLogged = true
                }
                if let ended {
                    // After a capture the clock goes on in real time, so pending exits still happen.
                    now = ended.at + (clock.now().seconds - ended.wall)
                    tick(to: now)
                }
                let wall = clock.now().seconds
                if wall - lastMemoryRelief >= Self.memoryReliefInterval || (ended != nil && !relievedAfterEnd) {
                    MemoryRelief.releaseFreedMemory()
                    lastMemoryRelief = wall
                    relievedAfterEnd = ended != nil
                }
                if wall - lastTelemetry >= configuration.telemetryInterval {
                    let statistics = connection.statistics
                    var telemetry = JSONObjectWriter()
                    telemetry.add("uptime", Int(wall - startedAt.seconds))
                    telemetry.add("adverts", core.advertisementCount)
                    telemetry.add("advertsPerSecond", Double(advertsSinceTelemetry) / max(wall - lastTelemetry, 1), decimals: 1)
                    telemetry.add("beacons", core.trackedBeaconCount)
                    telemetry.add("regions", core.regionCount)
                    telemetry.add("published", counters.published.load(ordering: .relaxed))
                    telemetry.add("dropped", counters.dropped.load(ordering: .relaxed) + statistics.droppedMessages)
                    telemetry.add("reconnects", statistics.reconnects)
                    // Beacons not tracked because of `maxTrackedBeacons` (evicted or refused).
                    telemetry.add("beaconsDropped", core.droppedBeaconCount)
                    // Reports without an RSSI (presence for regions, no measurement).
                    telemetry.add("advertsWithoutRSSI", core.rssiUnavailableCount)
                    // Beacon identities heard in the last 5 minutes that no region or known beacon matches.
                    telemetry.add("unmatchedBeacons", core.hint.unmatchedCount(at: now))
                    radio?.write(to: &telemetry)
                    send(AgentPublication(topic: topics.nodeTelemetry(node), text: telemetry.json, qos: .atMostOnce, retain: false))
                    lastTelemetry = wall
                    advertsSinceTelemetry = 0
                }
            case .stop:
                return
            }
        }
    }

    /// Logs a QoS 1 publication the broker refused (an MQTT 5 reason code ≥ 0x80 in its PUBACK,
    /// e.g. 0x87 not authorized: the account may not write the topic): the first at once, then one
    /// line a minute with the number refused since (`refused`). The agent runs on; the most likely
    /// cause is an account name that is not the node id.
    private func reportRefusal(of publication: MQTTPublishReceipt, topic: String) {
        Task { [self] in
            do {
                try await publication.acknowledged()
            } catch let error as MQTTError {
                guard case .publishRejected(let reasonCode) = error.code else { return }
                let now = clock.now()
                guard let refused = refusalLog.withLock({ $0.note(at: now) }) else { return }
                logger.error(
                    "the broker refused a publication; check that the account name is the node id",
                    metadata: [
                        "topic": "\(topic)", "reasonCode": "\(reasonCode)", "reason": "\(error.message)", "refused": "\(refused)",
                    ])
            } catch {}
        }
    }

    private func perform(
        _ actions: [AgentAction], connection: MQTTConnection?, state: StateDirectory, persistent: Bool,
        recorder: TraceFileWriter? = nil, send: (AgentPublication) -> Void = { _ in }
    ) {
        for action in actions {
            switch action {
            case .publish(let publication):
                send(publication)
            case .persist(let file, let contents):
                guard persistent else { continue }
                do {
                    try state.write(file, contents: contents)
                } catch {
                    logger.error("cannot save the configuration; it stays in force in memory", metadata: ["reason": "\(error)"])
                }
            case .record(let sample):
                recorder?.append(sample)
            case .log(let level, let message):
                switch level {
                case .info: logger.info("\(message)")
                case .warning: logger.warning("\(message)")
                case .error: logger.error("\(message)")
                }
            }
        }
    }
}

/// The system refused a thread for reading the source (`DetachedThread.start` returned false).
struct SourceThreadRefused: Error, CustomStringConvertible {
    var description: String { "the system refused a thread for reading the source" }
}
