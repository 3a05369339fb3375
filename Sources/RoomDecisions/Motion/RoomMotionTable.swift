import BeaconCore

/// Every room's motion as the decider knows it, by room code, and how many beacons are decided in
/// each room (who could explain a room's motion). `RoomDecider` keeps one from the first motion
/// report on; until then it has none and decides exactly as without sensors.
struct RoomMotionTable: Sendable {
    typealias Code = RoomDecider.NameCode

    struct Room: Sendable {
        /// Whether a sensor of the room counts (reported, available, not stale).
        var counts = false
        var occupied = false
        /// When the current motion started (nil while clear).
        var onset: Instant?
        /// When motion was last seen: now while occupied, else when it cleared.
        var lastActive: Instant?
        /// Since when the sensor counts (a room only just given a sensor is not quiet yet).
        var countsSince = Instant(seconds: 0)

        /// Since when the room has been without motion, seconds: its last motion, or since its
        /// sensor counts when that is later (or it never saw motion).
        var quietSince: Double { lastActive.map { max($0.seconds, countsSince.seconds) } ?? countsSince.seconds }

        /// Whether the room's motion cleared at `time` itself: it still counts as active at that instant.
        func clearedAt(_ time: Instant) -> Bool { lastActive.map { time.since($0) <= 0 } ?? false }
    }

    var parameters: MotionParameters
    private(set) var rooms: [Room] = []
    /// Beacons decided in each room, by room code.
    var occupants: [Int] = []

    init(parameters: MotionParameters) {
        self.parameters = parameters
    }

    private mutating func grow(to code: Code) {
        let needed = Int(code) + 1
        if rooms.count < needed {
            rooms += Array(repeating: Room(), count: needed - rooms.count)
            occupants += Array(repeating: 0, count: needed - occupants.count)
        }
    }

    /// A room's motion: occupied, clear, or nil when no sensor of it counts any more.
    mutating func set(room code: Code, occupied: Bool?, at time: Instant) {
        grow(to: code)
        var room = rooms[Int(code)]
        guard let occupied else {
            room = Room()
            rooms[Int(code)] = room
            return
        }
        if !room.counts {
            room.counts = true
            room.countsSince = time
        }
        if occupied, !room.occupied { room.onset = time }
        if !occupied { room.onset = nil }
        if occupied || room.occupied { room.lastActive = time }
        room.occupied = occupied
        rooms[Int(code)] = room
    }

    /// A beacon's decided room changed.
    mutating func moved(from old: Code?, to new: Code?) {
        if let old, Int(old) < occupants.count { occupants[Int(old)] -= 1 }
        if let new {
            grow(to: new)
            occupants[Int(new)] += 1
        }
    }

    /// dB the current room `code` defends with on top of its radio score: none while another room's
    /// motion has just started with nobody there to explain it (someone arrived there: perhaps
    /// this beacon, and its own room's sensor is still on from its leaving).
    func hold(_ code: Code, at time: Instant) -> Double {
        // Off by default (`MotionParameters.hold`): then no room needs looking at, on every evaluation.
        guard parameters.hold != 0, Int(code) < rooms.count else { return 0 }
        let room = rooms[Int(code)]
        guard room.counts else { return 0 }
        for (other, state) in rooms.enumerated() where other != Int(code) && state.occupied && occupants[other] <= 0 {
            if let onset = state.onset, time.since(onset) <= parameters.onsetWindow { return 0 }
        }
        if room.occupied || room.clearedAt(time) { return parameters.hold }
        return 0
    }

    /// What a switch into `code` needs of the dwell and the evidence, as a factor (1: as without motion).
    /// Beacons decided in the room (the switching beacon never is: it is decided elsewhere) explain its onset.
    /// `since` is when the challenge started: one already running when the onset came (`since`
    /// before it) needs `confirmedOnsetFactor` (when not negative).
    /// `current` is the beacon's decided room: with `quietNeedsMotionHere`, a quiet room asks more
    /// only while the current room's own sensor is not quiet too.
    func switchFactor(_ code: Code, challengedSince since: Instant, from current: Code, at time: Instant) -> Double {
        guard Int(code) < rooms.count else { return 1 }
        let room = rooms[Int(code)]
        guard room.counts else { return 1 }
        if room.occupied, let onset = room.onset, time.since(onset) <= parameters.onsetWindow {
            guard occupants[Int(code)] <= 0 else { return 1 }
            return parameters.confirmedOnsetFactor >= 0 && since < onset ? parameters.confirmedOnsetFactor : parameters.onsetFactor
        }
        if room.occupied { return 1 }
        guard state(code, at: time) == .quiet else { return 1 }
        if parameters.quietNeedsMotionHere, state(current, at: time) ?? .quiet == .quiet { return 1 }
        return parameters.quietFactor
    }

    /// What a room's sensor says at `time`, as the site model's motion weights are measured and
    /// applied (`MotionWeights`): nil without a sensor that counts.
    func state(_ code: Code, at time: Instant) -> MotionWeights.State? {
        guard Int(code) < rooms.count else { return nil }
        let room = rooms[Int(code)]
        guard room.counts else { return nil }
        if room.occupied || room.clearedAt(time) { return .active }
        return time.seconds - room.quietSince >= parameters.quietAfter ? .quiet : .recent
    }

    /// For the site model: what room `code`'s motion says per second for a beacon decided in room
    /// `here` (nil: none yet), by `weights` (`MotionWeights`). Motion counts for a room the beacon is
    /// decided in, or one no other beacon is decided in: motion another beacon explains says nothing
    /// of this one, so the room counts for it as quiet (were it 0, every quiet room, this beacon's
    /// own among them, would fall behind the room where someone else moves). A motion that started
    /// within `onsetWindow` adds `MotionParameters.modelOnset` (an arrival: the moment the radio is
    /// least sure). With `modelQuietNeedsMotionElsewhere` a quiet room loses its weight only while
    /// another room's motion is this beacon's own or nobody else's (someone, perhaps it, is moving there).
    func logLikelihood(_ code: Code, here: Code?, weights: MotionWeights, at time: Instant) -> Double {
        guard let state = state(code, at: time) else { return 0 }
        if state == .active {
            guard explains(code, here: here) else { return quietWeight(code, here: here, weights: weights) }
            let room = rooms[Int(code)]
            if room.occupied, let onset = room.onset, time.since(onset) <= parameters.onsetWindow {
                return weights.active + parameters.modelOnset
            }
            return weights.active
        }
        return state == .quiet ? quietWeight(code, here: here, weights: weights) : weights.recent
    }

    /// Whether room `code`'s motion may be a beacon's decided in `here`: its own room, or a room no
    /// other beacon is decided in.
    private func explains(_ code: Code, here: Code?) -> Bool {
        code == here || occupants[Int(code)] - (here == code ? 1 : 0) <= 0
    }

    /// What a quiet room (or one whose motion someone else explains) weighs for a beacon decided in `here`.
    private func quietWeight(_ code: Code, here: Code?, weights: MotionWeights) -> Double {
        guard parameters.modelQuietNeedsMotionElsewhere else { return weights.quiet }
        let elsewhere = rooms.indices.contains { other in
            other != Int(code) && rooms[other].counts && rooms[other].occupied && explains(Code(other), here: here)
        }
        return elsewhere ? weights.quiet : weights.recent
    }

    /// Until when `logLikelihood` gives the same for every room and beacon, as long as no sensor
    /// reports and no beacon moves: the first onset window, hold or quiet period to run out after `time`.
    func steadyUntil(_ time: Instant) -> Instant {
        var until = Double.infinity
        func note(_ seconds: Double) { if seconds > time.seconds { until = min(until, seconds) } }
        for room in rooms where room.counts {
            // The onset window and the hold end just after their last second (`≤`), quiet starts at its (`≥`).
            if room.occupied {
                if let onset = room.onset { note((onset.seconds + parameters.onsetWindow).nextUp) }
                continue
            }
            if let last = room.lastActive { note(last.seconds.nextUp) }
            note(room.quietSince + parameters.quietAfter)
        }
        return Instant(seconds: until)
    }

    /// The motion of room `code` now: nil without a sensor that counts.
    func motion(_ code: Code) -> Bool? {
        guard Int(code) < rooms.count, rooms[Int(code)].counts else { return nil }
        return rooms[Int(code)].occupied
    }
}
