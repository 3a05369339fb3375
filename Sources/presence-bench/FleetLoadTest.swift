import BeaconCore
import RoomDecisions
import Foundation
import Logging
import MQTTClient
import PresenceAggregator

/// One run of the fleet load test: a private mosquitto on a free loopback port, a real
/// `presence-aggregator run` process, and this process playing every node of a `FleetLayout`.
///
/// 1. Every node's `status` (`online`) and `info` are published retained, as agents do.
/// 2. Warm-up: every (beacon, node) pair publishes once, beacon after beacon, paced by the
///    aggregator itself: at most `warmUpWindow` beacons are sent and not yet placed (so a site of
///    100,000 beacons does not bury the aggregator under 300,000 messages at once); then the run
///    waits until the aggregator has placed every beacon in its room (not measured).
/// 3. Steady phase, `duration` seconds: pair after pair publishes its measurement, evenly spaced
///    (message `i` is due at `i / messagesPerSecond`, never in bursts), each pair every
///    `60 / rate` seconds; the moving beacons move every `moveEvery` seconds, their moves spread
///    evenly. A move is what a node does on a real step (BeaconCore.docc/Tracking.md, "When a measurement is
///    published"): each of the beacon's nodes publishes at once, the one giving up the nearest
///    place first, the new nearest last.
/// 4. Drain: publishing stops; moves still undecided get `deadline` seconds past their due time.
///
/// **Decision lag** of a move = the time a subscriber sees the aggregator's
/// `<root>/locations/<beacon>` with the new room, minus the time the decision was due: the
/// moment the move's first message was handed to the client plus the decider's `dwell` (a
/// decisive lead needs just the dwell). So the lag is what the aggregator adds to its own
/// deliberate dwell: transport both ways, queueing behind other messages, and the rules' own wait
/// beyond the dwell (the service wakes when a decision is due, not at its next tick).
///
/// The lag is split in three. The bench runs the same room decision (`RoomDecider`, the defaults)
/// on the moving beacons' messages as it sends them, evaluated every 10 ms instead of at the
/// aggregator's ticks: when it switches is when the rules themselves decide. The aggregator's
/// location says when it switched (`since`, on the same machine's wall clock, to the millisecond).
/// **The decision's own wait** = the rules' switch minus the due time (the current room's held
/// score falling, the challenger's evidence, beyond the dwell); **to the decision** = `since`
/// minus the rules' switch (the messages' trip to the aggregator's loop, its queue, the wait for
/// the tick); **publishing** = when the subscriber sees the location minus `since` (the
/// service's work after the decision and the trip through the broker).
enum FleetLoadTest {
    struct Options {
        var layout: FleetLayout
        /// Messages per pair per minute.
        var rate: Double
        var duration: Double
        /// Share of beacons that move.
        var moving: Double
        var moveEvery: Double
        /// The aggregator's `--tick-interval`.
        var tickInterval: Double
        /// A move whose location has not come this long after it was due counts as dropped.
        var deadline: Double = 5
        var aggregator: String
        var mosquitto: String = "/usr/sbin/mosquitto"
        /// Messages per second while warming up, at most.
        var warmUpRate: Double = 3_000
        /// Beacons sent and not yet placed while warming up, at most.
        var warmUpWindow = 2_000
        var dwell: Double = SwitchingRule.default.dwell
        /// How the aggregator reaches the broker; the fleet's own clients stay on TCP.
        var aggregatorTransport = AggregatorTransport.tcp

        var messagesPerSecond: Double { Double(layout.pairs) * rate / 60 }
    }

    /// What the subscriber saw, shared with the publishing thread.
    struct Observations: Sendable {
        var aggregatorOnline = false
        /// The room each beacon should be in, and whether the aggregator has said so.
        var expectedRoom: [Int]
        var placed: [Bool]
        var placedCount = 0
        /// Per beacon, the monotonic ns at which its pending move's decision is due (0: none).
        var due: [UInt64]
        /// The same due time on the wall clock (Unix seconds), to compare with the location's `since`.
        var dueWall: [Double]
        var lagsNs: [Int64] = []
        /// Each decided move's lag split at the location's `since`, seconds: waiting to decide, publishing.
        var splits: [(deciding: Double, publishing: Double)] = []
        /// Per beacon, when the bench's own decider switched it to the pending move's room (Unix
        /// seconds; 0: not yet), and each decided move's wait split at it: the rules' own, the service's.
        var ownDecided: [Double]
        var ownSplits: [(own: Double, toDecision: Double)] = []
        /// Per beacon, the aggregator's switch (`since`) of a move the bench's decider had not
        /// switched yet when the location came (0: none): split when it does; moves it never
        /// switched before the beacon's next move are counted.
        var aggregatorFirst: [Double]
        var rulesNever = 0
        var brokerDropped: Int?
    }

    static func run(_ options: Options, progress: (String) -> Void) throws -> Result {
        let layout = options.layout
        let broker = try BenchBroker(
            executable: options.mosquitto, extraConfiguration: "sys_interval 1\n", unixSocket: options.aggregatorTransport == .unix)
        defer { broker.stop() }
        let aggregatorLog = broker.directory + "/aggregator.log"
        let brokerURL = broker.socketPath.map { "unix://" + $0 } ?? "mqtt://127.0.0.1:\(broker.port)"
        let aggregator = try BenchProcess.spawn(options.aggregator, [
            "run", "--broker", brokerURL, "--root", FleetLayout.root,
            "--client-id", "fleet-aggregator", "--tick-interval", "\(options.tickInterval)", "--log-level", "warning",
            // None of the fleet's beacons is a known beacon: beyond the default cap of 20,000 unknown
            // beacons the aggregator would evict them as a flood of random ids (issue 38's 30,000
            // and 100,000 runs did), so the cap is the fleet's size.
            "--max-unknown-beacons", "\(max(20_000, options.layout.beacons))",
        ], logPath: aggregatorLog)
        var aggregatorRunning = true
        defer {
            if aggregatorRunning {
                kill(aggregator, SIGKILL)
                _ = try? BenchProcess.wait(aggregator)
            }
        }

        let logger = {
            var logger = Logger(label: "presence-bench")
            logger.logLevel = .error
            return logger
        }()
        let observed = Locked(Observations(
            expectedRoom: (0..<layout.beacons).map { layout.room(beacon: $0, nearestSlot: 0) },
            placed: Array(repeating: false, count: layout.beacons),
            due: Array(repeating: 0, count: layout.beacons),
            dueWall: Array(repeating: 0, count: layout.beacons),
            ownDecided: Array(repeating: 0, count: layout.beacons),
            aggregatorFirst: Array(repeating: 0, count: layout.beacons)))
        var beaconIndex: [String: Int] = [:]
        for beacon in 0..<layout.beacons { beaconIndex["\(FleetLayout.root)/locations/\(layout.beaconID(beacon).rawValue)"] = beacon }
        var roomIndex: [String: Int] = [:]
        for room in 0..<layout.rooms { roomIndex[layout.roomName(room)] = room }
        let port = broker.port
        let (subscriber, publisher, listener) = try SpeedCommand.blocking {
            [beaconIndex, roomIndex, logger] () async throws -> (MQTTConnection, MQTTConnection, Task<Void, Never>) in
            let subscriber = try MQTTConnection(
                options: MQTTConnectionOptions(host: "127.0.0.1", port: port, clientID: "fleet-subscriber"), logger: logger)
            try await subscriber.connect(timeout: .seconds(10))
            let locations = try await subscriber.subscribe("\(FleetLayout.root)/locations/+", qos: .atMostOnce)
            let status = try await subscriber.subscribe("\(FleetLayout.root)/aggregator/status", qos: .atMostOnce)
            let dropped = try await subscriber.subscribe("$SYS/broker/publish/messages/dropped", qos: .atMostOnce)
            let listener = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in locations {
                            let now = BenchProcess.nanoseconds()
                            let nowWall = Date().timeIntervalSince1970
                            guard let beacon = beaconIndex[message.topic],
                                  let room = roomName(in: message.payload).flatMap({ roomIndex[$0] }) else { continue }
                            observed.withLock { seen in
                                guard seen.expectedRoom[beacon] == room else { return }
                                if !seen.placed[beacon] {
                                    seen.placed[beacon] = true
                                    seen.placedCount += 1
                                }
                                if seen.due[beacon] != 0 {
                                    seen.lagsNs.append(Int64(bitPattern: now &- seen.due[beacon]))
                                    seen.due[beacon] = 0
                                    // Read in full only here, once per move.
                                    if let since = BeaconLocation(retainedPayload: message.payload)?.since.seconds {
                                        seen.splits.append((since - seen.dueWall[beacon], nowWall - since))
                                        if seen.ownDecided[beacon] != 0 {
                                            seen.ownSplits.append((seen.ownDecided[beacon] - seen.dueWall[beacon], since - seen.ownDecided[beacon]))
                                        } else {
                                            seen.aggregatorFirst[beacon] = since
                                        }
                                    }
                                    seen.ownDecided[beacon] = 0
                                }
                            }
                        }
                    }
                    group.addTask {
                        for await message in status {
                            let online = message.payloadString == "online"
                            observed.withLock { $0.aggregatorOnline = online }
                        }
                    }
                    group.addTask {
                        for await message in dropped {
                            let count = Int(message.payloadString ?? "")
                            observed.withLock { $0.brokerDropped = count }
                        }
                    }
                }
            }
            // Room for every node's retained status and info (two each) and more: at the default
            // 1,000 the tool could not play 900 nodes (`queueFull`).
            var publisherOptions = MQTTConnectionOptions(host: "127.0.0.1", port: port, clientID: "fleet-nodes")
            publisherOptions.maxPendingMessages = 65_000
            let publisher = try MQTTConnection(options: publisherOptions, logger: logger)
            try await publisher.connect(timeout: .seconds(10))
            return (subscriber, publisher, listener)
        }
        defer {
            listener.cancel()
            _ = try? SpeedCommand.blocking {
                await publisher.disconnect(flushTimeout: .seconds(2))
                await subscriber.disconnect(flushTimeout: .seconds(1))
            }
        }

        var result = Result()
        var lastSample: UInt64 = 0
        // Every 100 ms: reading /proc at every pacing step would cost the bench more CPU than the
        // messages themselves, on the cores the aggregator needs.
        func sampleMemory() {
            let now = BenchProcess.nanoseconds()
            guard now - lastSample >= 100_000_000 else { return }
            lastSample = now
            if let bytes = BenchProcess.residentBytes(pid: aggregator) {
                result.aggregatorResidentBytes = bytes
                result.aggregatorPeakResidentBytes = max(result.aggregatorPeakResidentBytes, bytes)
            }
        }
        /// The aggregator logs the publications its client refuses (out-queue full, no connection)
        /// in summary lines, `failed=<count>` each.
        func failedPublications() -> Int {
            guard let log = try? String(contentsOfFile: aggregatorLog, encoding: .utf8) else { return 0 }
            return FleetLoadTest.failedPublications(inLog: log)
        }
        func waitUntil(_ what: String, seconds: Double, _ condition: (Observations) -> Bool) throws {
            let deadline = BenchProcess.nanoseconds() + UInt64(seconds * 1e9)
            while !observed.withLock({ condition($0) }) {
                guard BenchProcess.processIsRunning(aggregator) else {
                    throw BenchProcess.Failure("presence-aggregator exited while waiting for \(what); see \(aggregatorLog)")
                }
                guard BenchProcess.nanoseconds() < deadline else {
                    throw BenchProcess.Failure("timed out after \(seconds) s waiting for \(what); see \(aggregatorLog)")
                }
                sampleMemory()
                usleep(10_000)
            }
        }

        try waitUntil("the aggregator's status online", seconds: 30) { $0.aggregatorOnline }
        let startedAt = Instant(seconds: Date().timeIntervalSince1970)
        for node in 0..<layout.nodes {
            if publisher.statistics.pendingMessages > 20_000 {
                _ = try SpeedCommand.blocking { await publisher.pendingMessages(atMost: 10_000) }
            }
            let name = layout.nodeName(node)
            try publisher.publish(topic: "\(FleetLayout.root)/nodes/\(name)/status", string: "online", qos: .atLeastOnce, retain: true)
            try publisher.publish(
                topic: "\(FleetLayout.root)/nodes/\(name)/info", string: layout.nodeInfo(node, startedAt: startedAt),
                qos: .atLeastOnce, retain: true)
        }

        _ = try SpeedCommand.blocking { await publisher.pendingMessages(atMost: 0) }

        // The moving beacons, and the bench's own decider for them (see the type's comment).
        let movers = (0..<layout.beacons).filter { beacon in
            layout.moveSlot(beacon: beacon) != nil
                && Int((Double(beacon + 1) * options.moving).rounded(.down)) > Int((Double(beacon) * options.moving).rounded(.down))
        }
        var isMover = Array(repeating: false, count: layout.beacons)
        var moverIndex: [BeaconID: Int] = [:]
        for beacon in movers {
            isMover[beacon] = true
            moverIndex[layout.beaconID(beacon)] = beacon
        }
        var rules = RoomDecider()
        /// The room each mover's pending move goes to, until the bench's decider switches it there.
        var rulesPending: [Int: String] = [:]
        func noteRules(_ decisions: [RoomDecision]) {
            for decision in decisions {
                guard let beacon = moverIndex[decision.beacon], rulesPending[beacon] == decision.room else { continue }
                rulesPending[beacon] = nil
                let switched = decision.since.seconds
                observed.withLock { seen in
                    if seen.aggregatorFirst[beacon] != 0 {
                        // The aggregator switched first: its part is negative.
                        seen.ownSplits.append((switched - seen.dueWall[beacon], seen.aggregatorFirst[beacon] - switched))
                        seen.aggregatorFirst[beacon] = 0
                    } else {
                        seen.ownDecided[beacon] = switched
                    }
                }
            }
        }
        func feedRules(beacon: Int, slot: Int, nearestSlot: Int, sequence: Int, at time: Instant) {
            guard isMover[beacon] else { return }
            let evidence = layout.evidence(beacon: beacon, slot: slot, nearestSlot: nearestSlot, sequence: sequence)
            if let decision = rules.update(evidence, at: time) { noteRules([decision]) }
        }
        var rulesTicked = 0.0

        // Warm-up: every pair once, beacon after beacon (nearest node first), at most
        // `warmUpWindow` beacons ahead of the aggregator's placements.
        progress("warm-up: \(layout.pairs) measurements, then waiting until \(layout.beacons) beacons are placed")
        let warmUpStart = BenchProcess.nanoseconds()
        var topics: [String] = []
        topics.reserveCapacity(layout.pairs)
        for pair in 0..<layout.pairs { topics.append(layout.topic(beacon: pair % layout.beacons, slot: pair / layout.beacons)) }
        let warmUpDeadline = BenchProcess.nanoseconds() + UInt64((60 + Double(layout.pairs) / 500) * 1e9)
        try pace(messages: layout.pairs, perSecond: options.warmUpRate, seconds: .infinity) { index in
            let beacon = index / layout.nodesPerBeacon
            let slot = index % layout.nodesPerBeacon
            if slot == 0 {
                while beacon - observed.withLock({ $0.placedCount }) > options.warmUpWindow {
                    guard BenchProcess.processIsRunning(aggregator), BenchProcess.nanoseconds() < warmUpDeadline else {
                        throw BenchProcess.Failure("the warm-up stalled at beacon \(beacon); see \(aggregatorLog)")
                    }
                    sampleMemory()
                    usleep(2_000)
                }
            }
            let time = Instant(seconds: Date().timeIntervalSince1970)
            let payload = layout.payload(beacon: beacon, slot: slot, nearestSlot: 0, sequence: 0, time: time)
            try publisher.publish(topic: topics[slot * layout.beacons + beacon], string: payload)
            feedRules(beacon: beacon, slot: slot, nearestSlot: 0, sequence: 0, at: time)
        } between: { sampleMemory() }
        do {
            try waitUntil("every beacon placed", seconds: 60 + Double(layout.pairs) / 500) { $0.placedCount == layout.beacons }
        } catch {
            let placed = observed.withLock { $0.placedCount }
            throw BenchProcess.Failure("\(error); \(placed) of \(layout.beacons) placed, \(failedPublications()) publications failed")
        }
        // Let the backlog of the warm-up drain before measuring.
        let settle = BenchProcess.nanoseconds() + 2_000_000_000
        while BenchProcess.nanoseconds() < settle {
            sampleMemory()
            usleep(50_000)
        }
        result.warmUpSeconds = Double(BenchProcess.nanoseconds() - warmUpStart) / 1e9
        result.aggregatorPublicationFailuresWarmUp = failedPublications()
        let warmUpLogLines = logLines((try? String(contentsOfFile: aggregatorLog, encoding: .utf8)) ?? "").lines

        // The moves: each moving beacon every `moveEvery` s, the movers' phases spread evenly,
        // none in the last `deadline` s of the run.
        var moves: [(time: Double, beacon: Int)] = []
        for (index, beacon) in movers.enumerated() {
            var time = 0.5 + options.moveEvery * Double(index) / Double(movers.count)
            while time < options.duration - options.deadline {
                moves.append((time, beacon))
                time += options.moveEvery
            }
        }
        moves.sort { $0.time < $1.time }

        var nearest = Array(repeating: 0, count: layout.beacons)
        let baselineDropped = observed.withLock { $0.brokerDropped }
        let aggregatorCPUStart = BenchProcess.cpuTimes(pid: aggregator) ?? (0, 0)
        let brokerCPUStart = BenchProcess.cpuSeconds(pid: broker.pid) ?? 0
        progress("steady: \(Int(options.messagesPerSecond)) messages/s for \(options.duration) s, \(moves.count) moves")
        var nextMove = 0
        let start = BenchProcess.nanoseconds()
        let dwellNs = UInt64(options.dwell * 1e9)
        try pace(messages: .max, perSecond: options.messagesPerSecond, seconds: options.duration) { index in
            let pair = index % layout.pairs
            let beacon = pair % layout.beacons
            let slot = pair / layout.beacons
            let time = Instant(seconds: Date().timeIntervalSince1970)
            let payload = layout.payload(
                beacon: beacon, slot: slot, nearestSlot: nearest[beacon], sequence: 1 + index / layout.pairs, time: time)
            do {
                try publisher.publish(topic: topics[pair], string: payload)
                result.messagesPublished += 1
            } catch {
                result.publishFailures += 1
            }
            feedRules(beacon: beacon, slot: slot, nearestSlot: nearest[beacon], sequence: 1 + index / layout.pairs, at: time)
        } between: {
            // The rules evaluated every 10 ms: when they switch a moving beacon, not when a tick does.
            let wall = Date().timeIntervalSince1970
            if wall - rulesTicked >= 0.01 {
                rulesTicked = wall
                noteRules(rules.tick(at: Instant(seconds: wall)))
            }
            let elapsed = Double(BenchProcess.nanoseconds() - start) / 1e9
            while nextMove < moves.count, moves[nextMove].time <= elapsed {
                let beacon = moves[nextMove].beacon
                nextMove += 1
                guard let away = layout.moveSlot(beacon: beacon) else { continue }
                let to = nearest[beacon] == 0 ? away : 0
                nearest[beacon] = to
                let room = layout.room(beacon: beacon, nearestSlot: to)
                // Due before the first message leaves, so an early answer cannot beat the record.
                let due = BenchProcess.nanoseconds() + dwellNs
                let dueWall = Date().timeIntervalSince1970 + options.dwell
                observed.withLock {
                    $0.expectedRoom[beacon] = room
                    $0.due[beacon] = due
                    $0.dueWall[beacon] = dueWall
                    $0.ownDecided[beacon] = 0
                    if $0.aggregatorFirst[beacon] != 0 {
                        $0.rulesNever += 1
                        $0.aggregatorFirst[beacon] = 0
                    }
                }
                result.moves += 1
                let time = Instant(seconds: Date().timeIntervalSince1970)
                rulesPending[beacon] = layout.roomName(room)
                for slot in (0..<layout.nodesPerBeacon).filter({ $0 != to }) + [to] {
                    feedRules(beacon: beacon, slot: slot, nearestSlot: to, sequence: 0, at: time)
                    let payload = layout.payload(beacon: beacon, slot: slot, nearestSlot: to, sequence: 0, time: time)
                    do {
                        try publisher.publish(topic: layout.topic(beacon: beacon, slot: slot), string: payload)
                        result.messagesPublished += 1
                        result.moveMessages += 1
                    } catch {
                        result.publishFailures += 1
                    }
                }
            }
            sampleMemory()
        }
        result.seconds = Double(BenchProcess.nanoseconds() - start) / 1e9

        // Drain: every move decided, or its deadline passed; then one more $SYS interval.
        let deadlineNs = UInt64(options.deadline * 1e9)
        while true {
            let now = BenchProcess.nanoseconds()
            let waiting = observed.withLock { seen in seen.due.contains { $0 != 0 && now < $0 + deadlineNs } }
            guard waiting else { break }
            sampleMemory()
            usleep(10_000)
        }
        let aggregatorCPUEnd = BenchProcess.cpuTimes(pid: aggregator) ?? aggregatorCPUStart
        result.aggregatorUserCPUSeconds = aggregatorCPUEnd.user - aggregatorCPUStart.user
        result.aggregatorSystemCPUSeconds = aggregatorCPUEnd.system - aggregatorCPUStart.system
        result.brokerCPUSeconds = (BenchProcess.cpuSeconds(pid: broker.pid) ?? 0) - brokerCPUStart
        let sysWait = BenchProcess.nanoseconds() + 2_200_000_000
        while BenchProcess.nanoseconds() < sysWait {
            sampleMemory()
            usleep(50_000)
        }
        let seen = observed.withLock { $0 }
        result.lagsMs = seen.lagsNs.map { Double($0) / 1e6 }
        result.decidingMs = seen.splits.map { $0.deciding * 1e3 }
        result.publishingMs = seen.splits.map { $0.publishing * 1e3 }
        result.ownMs = seen.ownSplits.map { $0.own * 1e3 }
        result.toDecisionMs = seen.ownSplits.map { $0.toDecision * 1e3 }
        result.movesRulesNever = seen.rulesNever + seen.aggregatorFirst.filter { $0 != 0 }.count
        result.undecidedMoves = seen.due.filter { $0 != 0 }.count
        if let end = seen.brokerDropped { result.brokerDropped = end - (baselineDropped ?? 0) }
        result.aggregatorPublicationFailures = failedPublications() - result.aggregatorPublicationFailuresWarmUp

        kill(aggregator, SIGTERM)
        let exit = try BenchProcess.wait(aggregator)
        aggregatorRunning = false
        result.aggregatorExitStatus = exit.status
        result.aggregatorPeakResidentBytes = max(result.aggregatorPeakResidentBytes, exit.maxResidentBytes)
        if let log = try? String(contentsOfFile: aggregatorLog, encoding: .utf8) {
            result.aggregatorLogTail = String(log.suffix(1_000))
            let lines = logLines(log)
            result.aggregatorLogLines = lines.lines - warmUpLogLines
            result.aggregatorLogLinesMaxPerSecondPerKind = lines.maxPerSecondPerKind
        }
        // Kept after a failure (the logs are there); a finished run leaves nothing behind.
        try? FileManager.default.removeItem(atPath: broker.directory)
        return result
    }

    /// Calls `body(i)` for message `i` at `i / perSecond` seconds from now, catching up at once when
    /// late, and `between()` whenever it is ahead of time (at least every 2 ms), until `messages`
    /// messages or `seconds` seconds.
    private static func pace(
        messages: Int, perSecond: Double, seconds: Double, _ body: (Int) throws -> Void, between: () throws -> Void
    ) throws {
        let start = BenchProcess.nanoseconds()
        var sent = 0
        var lastBetween = start
        while sent < messages {
            let elapsed = Double(BenchProcess.nanoseconds() - start) / 1e9
            guard elapsed < seconds else { break }
            let due = min(messages, Int(elapsed * perSecond) + 1)
            while sent < due {
                try body(sent)
                sent += 1
                // Catching up must not starve the moves and the memory samples.
                if sent % 256 == 0, BenchProcess.nanoseconds() - lastBetween > 2_000_000 {
                    try between()
                    lastBetween = BenchProcess.nanoseconds()
                }
            }
            try between()
            lastBetween = BenchProcess.nanoseconds()
            let nextAt = Double(sent) / perSecond
            let wait = min(0.002, nextAt - Double(BenchProcess.nanoseconds() - start) / 1e9)
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
        }
    }
}
