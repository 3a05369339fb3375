import BeaconCore

/// Which of a site's aggregator instances publishes, decided through the broker (PastOneBuilding.md, "A
/// standby aggregator"). A pure state machine: the service feeds it what it reads on the
/// leadership topics and the passing of time, and carries out the actions it returns.
///
/// The protocol, in short:
/// - The leader publishes from a connection whose last will is `offline` on
///   `<root>/aggregator/status`, and holds a retained lease (`<root>/aggregator/leader`) that it
///   renews every quarter of `leaseTimeout`. Standbys publish nothing.
/// - The seat is **vacant** when the status says `offline` (the leader's will, or its clean stop),
///   when the lease is cleared, or when nothing of the leader was heard for `leaseTimeout` (a will
///   that never came). Then every instance — a leader that saw its own will included — stops
///   publishing and claims term `t + 1` on `<root>/aggregator/claim` (retained, so an instance
///   that starts meanwhile knows the term is taken and never wins it a second time).
/// - **The first claim of a term wins it.** The broker delivers messages to every subscriber in
///   the one order it handled them, so every instance sees the same first claim; the winner
///   starts publishing only after its own claim came back first, every other instance only
///   follows. Claims of a term already won are ignored.
/// - A leader that sees a lease of another instance with a higher term, or the same term and a
///   smaller id (two winners after a partition), steps down.
public struct AggregatorLeadership: Sendable {
    public enum Role: Sendable, Hashable {
        /// The retained leadership messages have not all arrived yet.
        case starting
        /// Another instance leads (nil: one says `online` but its lease has not been seen).
        case following(TopicLevelID?)
        /// The seat is vacant and this instance has claimed `term`.
        case electing(term: Int)
        /// This instance won `term` and publishes.
        case leading(term: Int)
    }

    public enum Action: Sendable, Hashable {
        /// Publish this claim (QoS 1, retained), from the leader connection (opened if needed).
        case claim(AggregatorLease)
        /// Won: publish the lease (retained), `online`, and the whole retained state; publish
        /// decisions from now on.
        case lead(AggregatorLease)
        /// Publish the lease again (retained).
        case renew(AggregatorLease)
        /// Another instance leads: close the leader connection cleanly (its will is discarded).
        case stepDown
    }

    public let instance: TopicLevelID
    public let leaseTimeout: Double
    public private(set) var role: Role = .starting
    /// The highest term settled so far (0: none seen).
    public private(set) var term = 0

    private var statusOnline = false
    /// The lease holder read while starting.
    private var retainedHolder: TopicLevelID?
    /// While starting: the instance of a claim newer than the retained lease.
    private var pendingClaimer: TopicLevelID?
    private var leaderHeardAt: Instant?
    private var claimedAt: Instant?
    private var renewedAt: Instant?

    public init(instance: TopicLevelID, leaseTimeout: Double) {
        self.instance = instance
        self.leaseTimeout = leaseTimeout
    }

    /// The leader renews its lease this often: a quarter of the lease timeout.
    public var renewInterval: Double { leaseTimeout / 4 }

    /// The lease this instance holds, when leading.
    public var currentLease: AggregatorLease? {
        if case .leading(let held) = role { return AggregatorLease(instance: instance, term: held) }
        return nil
    }

    /// True while this instance may publish decisions.
    public var isLeading: Bool {
        if case .leading = role { return true }
        return false
    }

    // MARK: - Inputs

    /// Every retained leadership message has arrived (the instance's sync echo came back): follow
    /// a live leader, or claim the seat.
    public mutating func synced(at time: Instant) -> [Action] {
        guard role == .starting else { return [] }
        if statusOnline, retainedHolder != instance {
            role = .following(retainedHolder)
            leaderHeardAt = time
            return []
        }
        if let claimer = pendingClaimer, claimer != instance {
            // An election is under way (a claim newer than the lease): its claimer leads soon, or
            // its will or the lease timeout reopens the seat. Claiming now would only unseat it.
            role = .following(claimer)
            leaderHeardAt = time
            return []
        }
        return vacancy(at: time)
    }

    /// `<root>/aggregator/status`: `online` or `offline` (anything else is not given here).
    public mutating func status(online: Bool, at time: Instant) -> [Action] {
        statusOnline = online
        switch role {
        case .starting, .electing:
            return []
        case .following:
            if online {
                leaderHeardAt = time
                return []
            }
            return vacancy(at: time)
        case .leading:
            // Our own `online` echoes back; `offline` is our will (the leader connection dropped
            // and the broker gave up on it): stop and take part in the election like everyone.
            return online ? [] : vacancy(at: time)
        }
    }

    /// The retained lease `<root>/aggregator/leader`; nil when it was cleared (a clean stop).
    public mutating func lease(_ lease: AggregatorLease?, at time: Instant) -> [Action] {
        guard let lease else {
            switch role {
            case .starting:
                retainedHolder = nil
                return []
            case .following:
                return vacancy(at: time)
            case .electing:
                return []
            case .leading(let held):
                return [.renew(AggregatorLease(instance: instance, term: held))]
            }
        }
        guard lease.term >= term else {
            // Stale (a late renewal of an earlier leader): the leader writes its own back over it.
            if case .leading(let held) = role { return [.renew(AggregatorLease(instance: instance, term: held))] }
            return []
        }
        switch role {
        case .starting:
            retainedHolder = lease.instance
            if lease.term >= term { pendingClaimer = nil }
            term = lease.term
            return []
        case .following:
            guard lease.instance != instance else { return [] }
            term = lease.term
            role = .following(lease.instance)
            leaderHeardAt = time
            return []
        case .electing(let claimed):
            guard lease.instance != instance, lease.term >= claimed else { return [] }
            return follow(lease, at: time)
        case .leading(let held):
            guard lease.instance != instance else { return [] }
            if lease.term > held || (lease.term == held && lease.instance < instance) {
                return follow(lease, at: time)
            }
            return [.renew(AggregatorLease(instance: instance, term: held))]
        }
    }

    /// A claim on `<root>/aggregator/claim`: the first of a term higher than any settled wins it.
    public mutating func claim(_ claim: AggregatorLease, at time: Instant) -> [Action] {
        guard claim.term > term else { return [] }
        if role == .starting {
            term = claim.term
            pendingClaimer = claim.instance
            return []
        }
        if claim.instance == instance {
            term = claim.term
            role = .leading(term: claim.term)
            renewedAt = time
            return [.lead(claim)]
        }
        return follow(claim, at: time)
    }

    /// One of this instance's connections dropped: what it read may be incomplete and what it
    /// publishes may be late, so it stops publishing and reads the leadership topics afresh (the
    /// service sends a sync echo again); then it follows the leader it finds, or claims.
    public mutating func connectionLost() {
        switch role {
        case .starting:
            return
        case .following(let leader):
            retainedHolder = leader
        case .leading, .electing:
            retainedHolder = instance
        }
        pendingClaimer = nil
        role = .starting
    }

    /// Lets time pass: the leader renews; a follower that heard nothing of its leader for the
    /// lease timeout claims; an unanswered claim is sent again.
    public mutating func tick(at time: Instant) -> [Action] {
        switch role {
        case .starting:
            return []
        case .leading(let held):
            guard let renewedAt, time.since(renewedAt) < renewInterval else {
                renewedAt = time
                return [.renew(AggregatorLease(instance: instance, term: held))]
            }
            return []
        case .following:
            guard let leaderHeardAt, time.since(leaderHeardAt) < leaseTimeout else { return vacancy(at: time) }
            return []
        case .electing(let claimed):
            guard let claimedAt, time.since(claimedAt) < leaseTimeout else {
                claimedAt = time
                return [.claim(AggregatorLease(instance: instance, term: claimed))]
            }
            return []
        }
    }

    // MARK: - Private

    private mutating func vacancy(at time: Instant) -> [Action] {
        let next = term + 1
        role = .electing(term: next)
        claimedAt = time
        return [.claim(AggregatorLease(instance: instance, term: next))]
    }

    private mutating func follow(_ lease: AggregatorLease, at time: Instant) -> [Action] {
        let wasPublishingOrClaiming: Bool
        switch role {
        case .leading, .electing: wasPublishingOrClaiming = true
        case .starting, .following: wasPublishingOrClaiming = false
        }
        term = lease.term
        role = .following(lease.instance)
        leaderHeardAt = time
        return wasPublishingOrClaiming ? [.stepDown] : []
    }
}

extension AggregatorLeadership {
    /// One message of the leadership topics (`syncTopic`, the aggregator status, the lease and the
    /// claim); a message of any other topic, or one unreadable, changes nothing.
    mutating func receive(topic: String, payload: [UInt8], topics: TopicScheme, syncTopic: String,
                          at now: Instant) -> [Action] {
        switch topic {
        case syncTopic:
            return synced(at: now)
        case topics.aggregatorStatus:
            switch String(validating: payload, as: UTF8.self) {
            case "online": return status(online: true, at: now)
            case "offline", "": return status(online: false, at: now)
            default: return []
            }
        case AggregatorLease.leaderTopic(topics):
            if payload.isEmpty { return lease(nil, at: now) }
            guard let claimed = AggregatorLease(payload: payload) else { return [] }
            return lease(claimed, at: now)
        case AggregatorLease.claimTopic(topics):
            guard let claimed = AggregatorLease(payload: payload) else { return [] }
            return claim(claimed, at: now)
        default:
            return []
        }
    }
}
