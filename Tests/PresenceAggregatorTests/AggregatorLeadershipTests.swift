import BeaconCore
import PresenceAggregator
import TestSupport
import Testing

/// The leadership state machine of a site's aggregator instances, on injected time, with a broker
/// in miniature: one ordered log of messages that every instance reads at its own pace, as
/// mosquitto delivers one topic tree to each subscriber in the order it handled the messages.
@Suite struct AggregatorLeadershipTests {
    static let a = TopicLevelID("agg-a")!
    static let b = TopicLevelID("agg-b")!
    static let c = TopicLevelID("agg-c")!
    static let timeout = 60.0

    enum Message: Equatable {
        case status(online: Bool)
        case lease(AggregatorLease?)
        case claim(AggregatorLease)
        case sync(TopicLevelID)
    }

    struct Member {
        var machine: AggregatorLeadership
        /// Next log position this instance reads.
        var read: Int
        var alive = true
        /// Open while claiming or leading; its last will is `offline`.
        var hasLeaderConnection = false
    }

    /// One broker: the log, the retained status and lease, and the instances reading it.
    struct MiniBroker {
        var log: [Message] = []
        var retainedStatus: Bool?
        var retainedLease: AggregatorLease?
        var retainedClaim: AggregatorLease?
        var members: [TopicLevelID: Member] = [:]
        /// Every `.lead` any instance carried out, in order.
        var wins: [AggregatorLease] = []

        mutating func publish(_ message: Message) {
            log.append(message)
            switch message {
            case .status(let online): retainedStatus = online
            case .lease(let lease): retainedLease = lease
            case .claim(let claim): retainedClaim = claim
            case .sync: break
            }
        }

        /// Starts an instance: it subscribes (the retained status and lease arrive first), then
        /// sends its sync echo.
        mutating func start(_ id: TopicLevelID, at time: Instant) {
            var machine = AggregatorLeadership(instance: id, leaseTimeout: AggregatorLeadershipTests.timeout)
            if let status = retainedStatus { #expect(machine.status(online: status, at: time).isEmpty) }
            if let lease = retainedLease { #expect(machine.lease(lease, at: time).isEmpty) }
            if let claim = retainedClaim { #expect(machine.claim(claim, at: time).isEmpty) }
            members[id] = Member(machine: machine, read: log.count)
            publish(.sync(id))
        }

        /// SIGKILL: the broker publishes the leader connection's will.
        mutating func kill(_ id: TopicLevelID) {
            guard var member = members[id], member.alive else { return }
            member.alive = false
            members[id] = member
            if member.hasLeaderConnection { publish(.status(online: false)) }
        }

        /// Delivers the next unread message to `id`; false when it has read everything.
        @discardableResult
        mutating func deliver(to id: TopicLevelID, at time: Instant) -> Bool {
            guard var member = members[id], member.alive, member.read < log.count else { return false }
            let message = log[member.read]
            member.read += 1
            let actions: [AggregatorLeadership.Action]
            switch message {
            case .status(let online): actions = member.machine.status(online: online, at: time)
            case .lease(let lease): actions = member.machine.lease(lease, at: time)
            case .claim(let claim): actions = member.machine.claim(claim, at: time)
            case .sync(let who): actions = who == id ? member.machine.synced(at: time) : []
            }
            members[id] = member
            carryOut(actions, by: id)
            return true
        }

        mutating func tick(_ id: TopicLevelID, at time: Instant) {
            guard var member = members[id], member.alive else { return }
            let actions = member.machine.tick(at: time)
            members[id] = member
            carryOut(actions, by: id)
        }

        /// Delivers everything to everyone alive.
        mutating func settle(at time: Instant) {
            var progress = true
            while progress {
                progress = false
                for id in members.keys.sorted() where deliver(to: id, at: time) { progress = true }
            }
        }

        mutating func carryOut(_ actions: [AggregatorLeadership.Action], by id: TopicLevelID) {
            for action in actions {
                switch action {
                case .claim(let lease):
                    members[id]?.hasLeaderConnection = true
                    publish(.claim(lease))
                case .lead(let lease):
                    wins.append(lease)
                    publish(.lease(lease))
                    publish(.status(online: true))
                case .renew(let lease):
                    publish(.lease(lease))
                case .stepDown:
                    members[id]?.hasLeaderConnection = false
                }
            }
        }

        var leaders: [TopicLevelID] { members.filter { $0.value.alive && $0.value.machine.isLeading }.map(\.key).sorted() }
        func role(_ id: TopicLevelID) -> AggregatorLeadership.Role? { members[id]?.machine.role }
    }

    /// The first instance on an empty broker leads; the second follows it; a SIGKILL of the leader
    /// (its will) hands the lead to the standby at once, in term 2.
    @Test func firstLeadsSecondFollowsAndTakesOverAfterTheWill() {
        var broker = MiniBroker()
        broker.start(Self.a, at: startTime)
        broker.settle(at: startTime)
        #expect(broker.role(Self.a) == .leading(term: 1))
        #expect(broker.retainedStatus == true)
        #expect(broker.retainedLease == AggregatorLease(instance: Self.a, term: 1))

        broker.start(Self.b, at: startTime + 5)
        broker.settle(at: startTime + 5)
        #expect(broker.role(Self.b) == .following(Self.a))
        #expect(broker.leaders == [Self.a])

        broker.kill(Self.a)
        broker.settle(at: startTime + 20)
        #expect(broker.role(Self.b) == .leading(term: 2))
        #expect(broker.wins == [AggregatorLease(instance: Self.a, term: 1), AggregatorLease(instance: Self.b, term: 2)])
        // The killed instance restarts: the retained lease and `online` make it a standby.
        broker.members[Self.a] = nil
        broker.start(Self.a, at: startTime + 30)
        broker.settle(at: startTime + 30)
        #expect(broker.role(Self.a) == .following(Self.b))
        #expect(broker.leaders == [Self.b])
    }

    /// Two standbys see the vacancy together and both claim before reading either claim: the
    /// broker's order decides, both agree, and the loser closes its leader connection.
    @Test func simultaneousClaimsFirstInBrokerOrderWins() {
        var broker = MiniBroker()
        broker.start(Self.c, at: startTime)
        broker.settle(at: startTime)
        broker.start(Self.a, at: startTime)
        broker.start(Self.b, at: startTime)
        broker.settle(at: startTime)
        #expect(broker.leaders == [Self.c])
        broker.kill(Self.c)
        // Each reads the will; each claims term 2. b's claim is handled first by the broker.
        broker.deliver(to: Self.b, at: startTime + 10)
        broker.deliver(to: Self.a, at: startTime + 10)
        #expect(broker.log.suffix(2) == [.claim(AggregatorLease(instance: Self.b, term: 2)), .claim(AggregatorLease(instance: Self.a, term: 2))])
        #expect(broker.leaders.isEmpty)  // nobody publishes while the claims are on their way
        broker.deliver(to: Self.a, at: startTime + 10)  // a reads b's claim first: it follows b
        #expect(broker.role(Self.a) == .following(Self.b))
        #expect(broker.members[Self.a]?.hasLeaderConnection == false)
        broker.settle(at: startTime + 10)
        #expect(broker.leaders == [Self.b])
        #expect(broker.role(Self.a) == .following(Self.b))
        #expect(broker.wins.filter { $0.term == 2 } == [AggregatorLease(instance: Self.b, term: 2)])
    }

    /// Without a will (the broker restarted while the leader was gone), a standby takes over when
    /// nothing of the leader was heard for the lease timeout, not a moment before; a live leader
    /// renews every quarter of it, so its standby never does.
    @Test func leaseTimeoutIsTheSafetyNet() {
        var broker = MiniBroker()
        broker.start(Self.a, at: startTime)
        broker.start(Self.b, at: startTime)
        broker.settle(at: startTime)
        #expect(broker.leaders == [Self.a])
        // A live leader: renewals every 15 s keep b following across several lease timeouts.
        for second in stride(from: 1.0, through: 300, by: 1) {
            broker.tick(Self.a, at: startTime + second)
            broker.tick(Self.b, at: startTime + second)
            broker.settle(at: startTime + second)
        }
        #expect(broker.leaders == [Self.a])
        #expect(broker.log.filter { $0 == .lease(AggregatorLease(instance: Self.a, term: 1)) }.count == 1 + 300 / 15)
        // a vanishes without a will; b last heard it at 300 s.
        broker.members[Self.a]?.alive = false
        broker.tick(Self.b, at: startTime + 359.9)
        #expect(broker.role(Self.b) == .following(Self.a))
        broker.tick(Self.b, at: startTime + 360)
        #expect(broker.role(Self.b) == .electing(term: 2))
        broker.settle(at: startTime + 360)
        #expect(broker.leaders == [Self.b])
    }

    /// A leader that reads its own will (its leader connection dropped and the broker gave up on
    /// it) stops publishing at once and takes part in the election like the others.
    @Test func leaderThatSeesItsOwnWillStopsUntilReelected() {
        var machine = AggregatorLeadership(instance: Self.a, leaseTimeout: Self.timeout)
        #expect(machine.synced(at: startTime) == [.claim(AggregatorLease(instance: Self.a, term: 1))])
        #expect(machine.claim(AggregatorLease(instance: Self.a, term: 1), at: startTime) == [.lead(AggregatorLease(instance: Self.a, term: 1))])
        #expect(machine.isLeading)
        #expect(machine.status(online: true, at: startTime).isEmpty)  // its own `online`
        #expect(machine.status(online: false, at: startTime + 50) == [.claim(AggregatorLease(instance: Self.a, term: 2))])
        #expect(!machine.isLeading)
        // b's claim of term 2 came first.
        #expect(machine.claim(AggregatorLease(instance: Self.b, term: 2), at: startTime + 50) == [.stepDown])
        #expect(machine.claim(AggregatorLease(instance: Self.a, term: 2), at: startTime + 50).isEmpty)  // its own, too late
        #expect(machine.role == .following(Self.b))
    }

    /// Two winners (a partition healed): the higher term wins; in one term, the smaller id. The
    /// one that keeps the lead re-asserts its lease.
    @Test func twoLeadersResolveByTermThenId() {
        var machine = AggregatorLeadership(instance: Self.b, leaseTimeout: Self.timeout)
        _ = machine.synced(at: startTime)
        _ = machine.claim(AggregatorLease(instance: Self.b, term: 1), at: startTime)
        #expect(machine.lease(AggregatorLease(instance: Self.c, term: 1), at: startTime) == [.renew(AggregatorLease(instance: Self.b, term: 1))])
        #expect(machine.isLeading)
        #expect(machine.lease(AggregatorLease(instance: Self.a, term: 1), at: startTime) == [.stepDown])
        #expect(machine.role == .following(Self.a))
        // Stale leases and claims of settled terms change nothing.
        #expect(machine.lease(AggregatorLease(instance: Self.c, term: 1), at: startTime).isEmpty)  // follows c: the holder of term 1 it last read
        #expect(machine.claim(AggregatorLease(instance: Self.c, term: 1), at: startTime).isEmpty)
        #expect(machine.role == .following(Self.c))  // same term, another holder: the lease names the leader
    }

    /// Random schedules of three instances: deliveries at each one's own pace, SIGKILLs and
    /// restarts. Each term has at most one winner, and once the messages are delivered exactly one
    /// live instance leads and every other follows it.
    @Test func randomSchedulesElectExactlyOneLeader() {
        for seed in UInt64(1)...1000 {
            var random = SeededRandom(seed: seed)
            var broker = MiniBroker()
            let ids = [Self.a, Self.b, Self.c]
            var time = startTime
            for id in ids where Bool.random(using: &random) { broker.start(id, at: time) }
            if broker.members.isEmpty { broker.start(Self.a, at: time) }
            for _ in 0..<200 {
                time = time + Double.random(in: 0...2, using: &random)
                let id = ids.randomElement(using: &random)!
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<70: broker.deliver(to: id, at: time)
                case 70..<85: broker.tick(id, at: time)
                case 85..<92: broker.kill(id)
                default:
                    if broker.members[id]?.alive != true { broker.start(id, at: time) }
                }
            }
            if !broker.members.values.contains(where: \.alive) { broker.start(Self.b, at: time) }
            broker.settle(at: time)
            for _ in 0..<10 where broker.leaders.count != 1 {
                broker.settle(at: time)
                time = time + Self.timeout
                for id in broker.members.keys.sorted() { broker.tick(id, at: time) }
                broker.settle(at: time)
            }
            let terms = broker.wins.map(\.term)
            #expect(Set(terms).count == terms.count, "seed \(seed): a term won twice: \(broker.wins)")
            #expect(broker.leaders.count == 1, "seed \(seed): leaders \(broker.leaders)")
            guard let leader = broker.leaders.first else { continue }
            for (id, member) in broker.members where member.alive && id != leader {
                #expect(member.machine.role == .following(leader), "seed \(seed): \(id) is \(member.machine.role)")
                #expect(!member.hasLeaderConnection, "seed \(seed): \(id) kept a leader connection")
            }
        }
    }

    /// Lease payloads: what the service writes reads back; anything else is nil, never a trap.
    @Test func leasePayloadsParseOrAreRejected() {
        let lease = AggregatorLease(instance: Self.a, term: 7)
        #expect(AggregatorLease(payload: Array(lease.json(at: startTime).utf8)) == lease)
        #expect(lease.json(at: startTime) == #"{"instance":"agg-a","term":7,"at":"2025-11-22T08:00:00.000Z"}"#)
        for bad in ["", "online", "{}", #"{"instance":"Agg","term":1}"#, #"{"instance":"a","term":0}"#,
                    #"{"instance":"a","term":1.5}"#, #"{"instance":"a"}"#, #"[1]"#, #"{"instance":"a","term":99999999999}"#] {
            #expect(AggregatorLease(payload: Array(bad.utf8)) == nil, "\(bad)")
        }
        var random = SeededRandom(seed: 8)
        let valid = Array(lease.json(at: startTime).utf8)
        for _ in 0..<5000 {
            var bytes = random.bytes(Int.random(in: 0...80, using: &random))
            if Bool.random(using: &random) {
                bytes = Array(valid.prefix(Int.random(in: 0...valid.count, using: &random)))
                if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
            }
            _ = AggregatorLease(payload: bytes)
        }
    }
}
