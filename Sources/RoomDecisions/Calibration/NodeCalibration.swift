import BeaconCore

/// How the site's node-to-node calibration is solved (`NodeCalibrationSolver`).
public struct NodeCalibrationParameters: Sendable, Hashable {
    /// Seconds of adverts each direction's level is smoothed over (`NodeLevelCollector`).
    public var window: Double
    /// Measurements a direction needs in the window before its path is used. Our agents publish a
    /// still node's beacon once a heartbeat (a minute by default), ten in the ten-minute window, so
    /// eight let a site that nothing moves in calibrate within the window; each is already the
    /// node's filtered level, not one advert.
    public var minimumSamples: Int
    /// Paths (heard both ways) a node needs with the rest of the site before its offset can be confident.
    public var minimumPairs: Int
    /// The largest standard error, dB, of an offset that is applied: an offset less certain is
    /// published, but as not confident, and nothing applies it.
    public var maximumStandardError: Double
    /// A path whose two directions differ by this many dB more than the nodes' offsets and powers
    /// explain is rejected as blocked one way (at least four of the site's residual scales).
    public var blockedPath: Double
    /// A direction whose level moved this many dB within the window has changed; a node with most
    /// of its directions changed has moved, and its pairs wait until its level settles.
    public var movedShift: Double
    /// With node positions: a node whose power, found from the levels and the floor plan, differs
    /// from what it states by this many dB (beyond the site's common difference) is named, and
    /// its stated power not used.
    public var powerMismatch: Double
    /// The spread of transmit powers assumed when neither positions nor stated powers separate a
    /// node's power from its offset, dB: it enters every such node's standard error.
    public var assumedPowerSpread: Double

    public init(window: Double = 600, minimumSamples: Int = 8, minimumPairs: Int = 2, maximumStandardError: Double = 1,
                blockedPath: Double = 6, movedShift: Double = 3, powerMismatch: Double = 4.5,
                assumedPowerSpread: Double = 2) {
        self.window = window
        self.minimumSamples = minimumSamples
        self.minimumPairs = minimumPairs
        self.maximumStandardError = maximumStandardError
        self.blockedPath = blockedPath
        self.movedShift = movedShift
        self.powerMismatch = powerMismatch
        self.assumedPowerSpread = assumedPowerSpread
    }

    public static let `default` = NodeCalibrationParameters()
}

/// A node's place, metres, for the path-loss model that separates its power from its offset.
public struct NodePosition: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double = 0) {
        self.x = x
        self.y = y
        self.z = z
    }

    public func distance(to other: NodePosition) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y) + (z - other.z) * (z - other.z)).squareRoot()
    }
}

/// What separated each node's transmit power from its receiver offset. A path is the same both
/// ways, so the two directions of every path give only power minus offset per node; the split
/// needs one more thing, and this says which the solve had.
public enum NodeCalibrationBasis: String, Sendable, Hashable, Codable {
    /// The nodes' positions: each path's level against its length (a path-loss fit) gives power
    /// plus offset per node.
    case positions
    /// The power each node states in its advert.
    case statedPower
    /// Nothing: every node assumed to transmit at the same power (never confident by default).
    case equalPower
}

/// One node's solved calibration.
public struct NodeOffset: Sendable, Hashable {
    /// dB this node's receiver reads above the site's mean receiver: subtract it from what the
    /// node measures (the sign of the agent's `rssiOffset`).
    public var offset: Double
    /// Its transmit power as its neighbours hear it, dB relative to the site's mean; nil when not solved.
    public var power: Double?
    /// Standard error of `offset`, dB: from the paths' count, their adverts and how well they agree.
    public var standardError: Double
    /// Paths heard both ways that were used.
    public var pairs: Int
    /// Adverts over those paths, both directions.
    public var samples: Int
    /// True when the offset may be applied: enough pairs, `standardError` within the parameters',
    /// the node not named implausible or misstating its power.
    public var confident: Bool
    /// Why not confident; nil when confident.
    public var reason: String?

    public init(offset: Double, power: Double? = nil, standardError: Double, pairs: Int, samples: Int, confident: Bool,
                reason: String? = nil) {
        self.offset = offset
        self.power = power
        self.standardError = standardError
        self.pairs = pairs
        self.samples = samples
        self.confident = confident
        self.reason = reason
    }
}

/// Something the solve did not use, and why, named so an operator can act on it.
public struct NodeCalibrationRejection: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// A node beacon no node of the site claims (another site's), or heard by too few nodes.
        case outsider
        /// A node whose paths' levels shifted within the window.
        case moved
        /// A path whose one direction is weaker than the other by more than offsets and powers explain.
        case blockedPath
        /// A node whose power, from the positions, is not what it states.
        case powerMismatch
        /// A node with no path heard both ways to the rest of the site.
        case isolated
        /// A node several of whose paths were blocked one way: its beacon is heard at levels its
        /// paths cannot give (another site's node with the same beacon id heard beside it).
        case implausible
    }

    public var kind: Kind
    /// The node, beacon or path (`a→b`) it is about.
    public var subject: String
    public var reason: String

    public init(kind: Kind, subject: String, reason: String) {
        self.kind = kind
        self.subject = subject
        self.reason = reason
    }

    public var description: String { "\(subject): \(reason)" }
}

/// The site's calibration: an offset per node, what it rests on, and what was rejected.
public struct NodeCalibration: Sendable, Hashable {
    public var nodes: [String: NodeOffset]
    public var basis: NodeCalibrationBasis
    public var rejections: [NodeCalibrationRejection]
    /// The site's residual scale after the solve, dB (robust): how well the paths agree.
    public var residualScale: Double
    /// When it was solved, on the caller's clock.
    public var solvedAt: Instant

    public init(nodes: [String: NodeOffset] = [:], basis: NodeCalibrationBasis = .equalPower,
                rejections: [NodeCalibrationRejection] = [], residualScale: Double = 0, solvedAt: Instant = Instant(seconds: 0)) {
        self.nodes = nodes
        self.basis = basis
        self.rejections = rejections
        self.residualScale = residualScale
        self.solvedAt = solvedAt
    }

    /// The offsets that may be applied: the confident ones only.
    public var applicableOffsets: [String: Double] {
        nodes.compactMapValues { $0.confident ? $0.offset : nil }
    }
}
