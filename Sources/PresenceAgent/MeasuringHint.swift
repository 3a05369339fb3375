import BeaconCore

/// What a new node says while it hears beacons but measures none of them.
///
/// An agent measures only beacons in a pushed region or on the known list (`config/beacons`), so a
/// node installed as the README says publishes nothing, and Home Assistant stays empty. This state
/// notices that and says what to do: once at start when nothing is configured, then
/// `firstCheckAfter` seconds in and every `repeatInterval` seconds after, until the node has measured
/// a beacon (then it has been set up, and a room empty of beacons is no fault). It also counts, for
/// telemetry, the distinct beacon identities heard recently that match nothing.
///
/// Pure: the agent core feeds it and its clock; it returns the log lines.
public struct MeasuringHint: Sendable {
    /// Seconds from start to the first check: long enough for most beacons (1 Hz or faster) and the
    /// broker's retained configuration to have arrived, short enough to be read while installing.
    public static let firstCheckAfter = 30.0
    /// Seconds between later checks; also how long an unmatched identity counts as heard.
    public static let repeatInterval = 300.0
    /// The most unmatched identities remembered: a flood of random ids costs a bounded table.
    static let identityCap = 1_024

    /// The source the node scans, for the command the hint names (`hci0` by default).
    public var source: String = "hci0"
    /// Unmatched identities (not by address) with when each was last heard.
    private var unmatched: [BeaconID.Components: Instant] = [:]
    private var nextCheck: Instant
    private var advertsAtLastCheck = 0
    private var lastCheck: Instant
    /// Set once the node has measured something: the hint has done its work.
    private(set) var satisfied = false

    public init(start: Instant) {
        nextCheck = start + Self.firstCheckAfter
        lastCheck = start
    }

    /// A beacon identity heard that no region or known beacon matches (discovery off).
    mutating func heardUnmatched(_ identity: BeaconID.Components, at time: Instant) {
        if case .mac = identity { return }
        if unmatched.count >= Self.identityCap && unmatched[identity] == nil { return }
        unmatched[identity] = time
    }

    /// Distinct beacon identities heard within `repeatInterval` that match nothing (telemetry's
    /// `unmatchedBeacons`).
    public func unmatchedCount(at time: Instant) -> Int {
        unmatched.values.reduce(0) { $0 + (time - $1 <= Self.repeatInterval ? 1 : 0) }
    }

    /// The line for the start of a node with nothing to measure, or none.
    static func startLine(regions: Int, knownBeacons: Int, reportUnknown: Bool, beaconsTopic: String) -> AgentAction? {
        guard regions == 0 && knownBeacons == 0 && !reportUnknown else { return nil }
        return .log(level: .info, message: """
            no regions and no known beacons yet: this node measures nothing until \(beaconsTopic) \
            (or a region) names a beacon; in \(Int(firstCheckAfter)) s it says what it hears
            """)
    }

    /// At each tick: the hint when a check is due and the node has measured nothing yet.
    /// `adverts`: every advertisement heard since start; `measured`: beacons tracked now plus
    /// measurements ever published (either means the node is set up).
    mutating func check(
        at time: Instant, adverts: Int, measured: Int, regions: Int, knownBeacons: Int, beaconsTopic: String
    ) -> AgentAction? {
        guard !satisfied else { return nil }
        if measured > 0 {
            satisfied = true
            unmatched = [:]
            return nil
        }
        guard time >= nextCheck else { return nil }
        let seconds = Int((time - lastCheck).rounded())
        let heard = adverts - advertsAtLastCheck
        nextCheck = time + Self.repeatInterval
        lastCheck = time
        advertsAtLastCheck = adverts
        unmatched = unmatched.filter { time - $0.value <= Self.repeatInterval }
        let identities = unmatched.count
        guard heard > 0 else {
            return .log(level: .warning, message: """
                heard no advertisement in \(seconds) s: no beacon is in range, or the adapter is not \
                scanning (see the source's lines above); try presence-agent scan --source \(source)
                """)
        }
        let configured = regions == 0 && knownBeacons == 0
            ? "no region and no known beacon is configured"
            : "its \(regions) regions and \(knownBeacons) known beacons match none of them"
        return .log(level: .warning, message: """
            heard \(heard) adverts in \(seconds) s, \(identities) beacons by identity, but measures none: \
            \(configured); list them with their config/beacons entries, strongest first: \
            presence-agent scan --source \(source) --duration 30 --suggest \
            (then publish the entries it prints, retained, on \(beaconsTopic))
            """)
    }
}
