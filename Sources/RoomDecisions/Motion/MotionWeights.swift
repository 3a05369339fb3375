import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a room's motion sensor says, per second, about a beacon being in that room: the site
/// model's motion evidence (`SiteModelFilter.motionLogLikelihood`), a log-likelihood ratio per
/// state of the sensor, log P(state | the beacon is in the sensor's room) − log P(state | it is
/// elsewhere). The model weighs by the figures (`init(_:)`); `measured` gives the same
/// ratios measured on labelled walks, which `presence-bench evaluate --motion` reports beside them
/// (`motion.<site>.modelWeights`). Measured second by second they are larger and, used as the
/// model's weights, decided the SAL bay worse (`MotionParameters.modelMotion`).
public struct MotionWeights: Sendable, Hashable {
    /// A sensor's state as the decision sees it (`RoomMotionTable.state`).
    public enum State: Int, Sendable, CaseIterable {
        /// Reporting motion now.
        case active
        /// Clear, with motion less than `MotionParameters.quietAfter` seconds ago.
        case recent
        /// No motion for `quietAfter` seconds or more.
        case quiet
    }

    /// Log-likelihood ratio per second of each state.
    public var active: Double
    public var recent: Double
    public var quiet: Double
    /// Labelled beacon-seconds they were measured on (0: not measured, the figures).
    public var seconds: Int

    public init(active: Double, recent: Double, quiet: Double, seconds: Int = 0) {
        self.active = active
        self.recent = recent
        self.quiet = quiet
        self.seconds = seconds
    }

    /// The weight of `state`.
    public subscript(state: State) -> Double {
        switch state {
        case .active: active
        case .recent: recent
        case .quiet: quiet
        }
    }

    /// Without walks that had sensors: the figures from a real house (`MotionParameters`'
    /// `modelMotion` and `modelQuiet`).
    public init(_ parameters: MotionParameters) {
        self.init(active: parameters.modelMotion, recent: 0, quiet: -parameters.modelQuiet)
    }

    /// As `init(_:)` for a model of `levels` (`SiteModel.levels`), which weighs a quiet room as a
    /// recent one (0): most of its rooms are told apart only by their levels and their sensors, and a
    /// person sitting still leaves their own room's sensor quiet for minutes while someone else's
    /// motion counts as motion elsewhere; weighed quiet there, their own room would lose to every room
    /// without a sensor and to every room someone else had lately walked through.
    public init(_ parameters: MotionParameters, levels: Bool) {
        self.init(parameters)
        if levels { quiet = recent }
    }

    /// Measured on labelled walks: per whole second of each beacon's labelled truth, every room whose
    /// sensor counts is in one state, and counted as the beacon's true room or not. Each ratio is
    /// smoothed (one count added to each state) so that a state never seen gives a finite weight.
    /// Nil when no walk had a sensor.
    public static func measured(_ walks: [(truth: [TruthSample], motion: [MotionSample])],
                                parameters: MotionParameters = .default) -> MotionWeights? {
        // counts[state][0]: the sensor's room is the true room; [1]: it is not.
        var counts = Array(repeating: [0, 0], count: State.allCases.count)
        var seconds = 0
        for walk in walks where !walk.motion.isEmpty {
            let rooms = Set(walk.motion.map(\.room)).sorted()
            var points: [(time: Double, room: String)] = []
            for (_, rows) in Dictionary(grouping: walk.truth, by: \.beacon) {
                guard let first = rows.first?.time.seconds, let last = rows.last?.time.seconds else { continue }
                var index = 0
                var time = first.rounded(.up)
                while time <= last {
                    while index + 1 < rows.count, rows[index + 1].time.seconds <= time { index += 1 }
                    if rows[index].room != RoomDecision.notHome { points.append((time, rows[index].room)) }
                    time += 1
                }
            }
            points.sort { $0.time < $1.time }
            var table = RoomMotionTable(parameters: parameters)
            var next = 0
            for point in points {
                while next < walk.motion.count, walk.motion[next].time.seconds <= point.time {
                    let row = walk.motion[next]
                    if let code = rooms.firstIndex(of: row.room) {
                        table.set(room: RoomDecider.NameCode(code), occupied: row.occupied, at: row.time)
                    }
                    next += 1
                }
                seconds += 1
                for (code, room) in rooms.enumerated() {
                    guard let state = table.state(RoomDecider.NameCode(code), at: Instant(seconds: point.time)) else { continue }
                    counts[state.rawValue][room == point.room ? 0 : 1] += 1
                }
            }
        }
        let here = Double(counts.map { $0[0] }.reduce(0, +)), elsewhere = Double(counts.map { $0[1] }.reduce(0, +))
        guard here > 0, elsewhere > 0 else { return nil }
        let states = Double(State.allCases.count)
        func ratio(_ state: State) -> Double {
            log((Double(counts[state.rawValue][0]) + 1) / (here + states))
                - log((Double(counts[state.rawValue][1]) + 1) / (elsewhere + states))
        }
        return MotionWeights(active: ratio(.active), recent: ratio(.recent), quiet: ratio(.quiet), seconds: seconds)
    }
}
