import BeaconCore
import RoomDecisions

/// Whether a rule on the raw adverts can be fast and still ride out a body's shadow, as a bound
/// for the worn rules. A shadow lowers the held room's receiver and raises no other; a move raises the new
/// room's receiver above its own recent level. So a challenger switches at once only when its
/// receiver's last `adverts` adverts (within `window`) all
///
/// - lead every other room's loudest advert of the last `window` by `lead` dB, plus `grow` dB for
///   every second the held room has been held, up to `growFor` s (a fade comes after settling);
/// - stand `rise` dB above that receiver's own mean over the `over` seconds before the last
///   `window` (0: not asked; a receiver with no adverts then counts as risen: newly heard);
/// - with `fall` above 0, find the held room fallen: its loudest 1-s mean now `fall` dB below its
///   loudest mean over those `over` seconds (or silent now).
///
/// Beside this fast path, a slow one lets the true room back after a wrong switch (its level is
/// steady, so it never rises): the room of the loudest 1-s mean wins once it has led every other
/// room's by `slowLead` dB at every advert for `slowFor` seconds (infinite: never).
///
/// `presence-bench evaluate --rise-oracle SPEC` scores it on every advert and on what the nodes
/// publish, given as `lead=4,adverts=2,rise=6,over=5,fall=0,grow=0,growFor=0,slowLead=2,slowFor=6,window=1`.
public struct RiseGatedOracle: Sendable, Hashable {
    public var lead = 4.0
    public var adverts = 2
    public var rise = 0.0
    public var over = 5.0
    public var fall = 0.0
    public var grow = 0.0
    public var growFor = 0.0
    public var slowLead = 0.0
    public var slowFor = Double.infinity
    /// A receiver's current level spans this long, seconds (1 on every advert; what the nodes
    /// publish comes seldom, so a rule on it needs longer).
    public var window = 1.0

    public init() {}

    /// Reads `key=value,…` over the defaults above; the error names the first part that is not one.
    public init(spec: String) throws(SpecError) {
        for part in spec.split(separator: ",") where !part.isEmpty {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let value = Double(pair[1]) else { throw SpecError(part: String(part)) }
            switch pair[0] {
            case "lead": lead = value
            case "adverts" where value >= 1 && value == value.rounded(): adverts = Int(value)
            case "rise": rise = value
            case "over" where value > 0: over = value
            case "fall": fall = value
            case "grow": grow = value
            case "growFor": growFor = value
            case "slowLead": slowLead = value
            case "slowFor": slowFor = value
            case "window" where value > 0: window = value
            default: throw SpecError(part: String(part))
            }
        }
    }

    public struct SpecError: Error, Sendable, CustomStringConvertible {
        public var part: String
        public var description: String { "'\(part)' is not one of lead, adverts (a whole number ≥ 1), rise, over (> 0), fall, grow, growFor, slowLead, slowFor, window (> 0) = a number" }
    }

    /// Decision rows over one beacon's adverts (any order; published rows are skipped).
    public func decisions(of samples: [TraceSample]) -> [(time: Instant, room: String)] {
        let adverts = samples.filter { $0.publication == nil }.sorted { $0.time < $1.time }
        let keep = window + over
        var heard: [String: [(time: Instant, rssi: Double)]] = [:]
        var roomOf: [String: String] = [:]
        var rows: [(time: Instant, room: String)] = []
        var current: String?
        var enteredAt = Instant(seconds: 0)
        var slowLeader: String?
        var slowSince = Instant(seconds: 0)
        for advert in adverts {
            let now = advert.time
            roomOf[advert.node] = advert.room
            heard[advert.node, default: []].append((now, Double(advert.rssi)))
            for node in heard.keys { heard[node]!.removeAll { now.since($0.time) >= keep } }
            // Each room's loudest 1-s mean and loudest mean over the `over` s before it.
            var level: [String: Double] = [:]
            var before: [String: Double] = [:]
            for (node, list) in heard {
                guard let room = roomOf[node] else { continue }
                let recent = list.filter { now.since($0.time) < window }
                let earlier = list.filter { now.since($0.time) >= window }
                if let m = Self.mean(recent.map(\.rssi)) { level[room] = max(level[room] ?? -.infinity, m) }
                if let m = Self.mean(earlier.map(\.rssi)) { before[room] = max(before[room] ?? -.infinity, m) }
            }
            if let taken = fastSwitch(advert, heard: heard, roomOf: roomOf, level: level, before: before,
                                      current: current, heldFor: now.since(enteredAt)) {
                current = taken
                enteredAt = now
                rows.append((now, taken))
                slowLeader = nil
                continue
            }
            // The slow path: the loudest 1-s mean, clear of every other by slowLead, for slowFor s.
            guard slowFor.isFinite else { continue }
            let ranked = level.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
            guard let top = ranked.first, top.value - (ranked.dropFirst().first?.value ?? -.infinity) >= slowLead else {
                slowLeader = nil
                continue
            }
            if top.key != slowLeader {
                slowLeader = top.key
                slowSince = now
            }
            if top.key != current, now.since(slowSince) >= slowFor {
                current = top.key
                enteredAt = now
                rows.append((now, top.key))
            }
        }
        return rows
    }

    /// The room `advert`'s receiver serves, when its last adverts pass the fast path's tests.
    private func fastSwitch(_ advert: TraceSample, heard: [String: [(time: Instant, rssi: Double)]], roomOf: [String: String],
                            level: [String: Double], before: [String: Double], current: String?, heldFor: Double) -> String? {
        let now = advert.time
        guard advert.room != current, let mine = heard[advert.node] else { return nil }
        let last = mine.suffix(adverts)
        guard last.count == adverts, last.allSatisfy({ now.since($0.time) < window }) else { return nil }
        let quieter = last.map(\.rssi).min()!
        var others = -Double.infinity
        for (node, list) in heard where roomOf[node] != advert.room {
            for entry in list where now.since(entry.time) < window { others = max(others, entry.rssi) }
        }
        guard quieter - others >= lead + grow * min(heldFor, growFor) else { return nil }
        guard let held = current else { return advert.room }
        if rise > 0 {
            let baseline = Self.mean(mine.filter { now.since($0.time) >= window }.map(\.rssi))
            if let baseline, quieter - baseline < rise { return nil }
        }
        if fall > 0 {
            if let now = level[held] {
                guard let then = before[held], then - now >= fall else { return nil }
            }
        }
        return advert.room
    }

    private static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}
