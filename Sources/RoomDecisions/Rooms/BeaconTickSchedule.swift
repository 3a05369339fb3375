import BeaconCore

/// Which beacons a `RoomDecider` tick must evaluate (issue 38: 100,000 beacons, four ticks a
/// second, when a tick evaluated every one of them).
///
/// After each evaluation a beacon is either **active** — a tick may change it (a challenger
/// integrating its lead, the current room's held score still falling, a beacon waiting to be
/// placed) — and is evaluated at every tick, or **quiet** until a due time (stale evidence, its
/// away timeout; `BeaconRoomState.quietUntil`) and skipped by the ticks before it. A skipped tick
/// would have changed nothing but the time the current room's held score was last let fall
/// (`defencePeakTime`), which an update reads: `catchUp` sets it to the last tick's time before the
/// beacon is evaluated again, so the decisions are the ones of a tick over every beacon, bit for bit.
struct BeaconTickSchedule: Sendable {
    /// Slots evaluated at the next tick whatever they were (listed once each).
    private var everyTick: [Int] = []
    private var listed: [Bool] = []
    /// Per slot: quiet at its last evaluation, so ticks since skipped it.
    private var quiet: [Bool] = []
    /// Per slot: quiet, and each skipped tick would have stamped its `defencePeakTime`.
    private var stampsPeakTime: [Bool] = []
    private var timers = SlotTimers()
    /// The time of the last tick, seconds.
    private(set) var lastTick = -Double.infinity

    /// Notes what the evaluation of `slot` just left (`BeaconRoomState.quietUntil`): quiet until
    /// `until` (seconds, +∞ for no timer), or active (nil).
    mutating func noteEvaluated(_ slot: Int, quietUntil quietness: (until: Double, stampsPeakTime: Bool)?) {
        grow(to: slot)
        if let (until, stamps) = quietness {
            quiet[slot] = true
            stampsPeakTime[slot] = stamps
            // Within a millisecond, so that rounding of the due time never delays it a tick: the
            // evaluation then applies the exact test.
            timers.schedule(slot, at: until - 0.001)
        } else {
            quiet[slot] = false
            stampsPeakTime[slot] = false
            list(slot)
        }
    }

    /// Makes the next tick evaluate `slot` (its away timeout changed).
    mutating func evaluateAtNextTick(_ slot: Int) {
        grow(to: slot)
        list(slot)
    }

    /// Before `slot` is evaluated: what the ticks it skipped would have done to its state.
    func catchUp(_ state: inout BeaconRoomState, slot: Int) {
        guard slot < quiet.count, stampsPeakTime[slot], lastTick > state.defencePeakTime.seconds else { return }
        // The held score equals the current room's score: each skipped tick would have kept it
        // and stamped its time.
        state.defencePeakTime = Instant(seconds: lastTick)
    }

    /// The slots a tick at `time` evaluates: the active ones and the quiet ones whose time is
    /// due, each once, in no particular order. (Free slots may be among them: the caller skips them.)
    mutating func takeSlots(at time: Double) -> [Int] {
        var slots: [Int] = []
        for slot in timers.takeDue(by: time) where slot < quiet.count && quiet[slot] && !listed[slot] { slots.append(slot) }
        for slot in everyTick {
            listed[slot] = false
            slots.append(slot)
        }
        everyTick.removeAll(keepingCapacity: true)
        return slots
    }

    /// After a tick at `time` (seconds).
    mutating func ticked(at time: Double) {
        lastTick = max(lastTick, time)
    }

    /// `slot` was freed: a beacon that takes it starts with nothing scheduled.
    mutating func free(_ slot: Int) {
        guard slot < quiet.count else { return }
        quiet[slot] = false
        stampsPeakTime[slot] = false
        timers.cancel(slot)
    }

    /// Every slot was freed.
    mutating func removeAll() {
        everyTick.removeAll()
        listed.removeAll()
        quiet.removeAll()
        stampsPeakTime.removeAll()
        timers.removeAll()
    }

    private mutating func list(_ slot: Int) {
        guard !listed[slot] else { return }
        listed[slot] = true
        everyTick.append(slot)
    }

    private mutating func grow(to slot: Int) {
        guard slot >= quiet.count else { return }
        let more = slot - quiet.count + 1
        quiet.append(contentsOf: repeatElement(false, count: more))
        stampsPeakTime.append(contentsOf: repeatElement(false, count: more))
        listed.append(contentsOf: repeatElement(false, count: more))
    }
}
