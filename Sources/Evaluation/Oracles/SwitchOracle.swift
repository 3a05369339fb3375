import BeaconCore
import RoomDecisions

/// How soon a beacon's adverts themselves show a move, a bound for the worn rules: rules with no
/// filter, no margin and no dwell beyond what each names, read on the raw adverts, scored like any
/// rule (`RoomDecisionScore`: their median switch is the time from a true change until the new
/// room is first decided). What they take is what the signal takes; a rule that must also ride
/// out shadows can only be slower (`presence-bench evaluate --candidate … --worn-draws N`).
///
/// At each advert, each receiver's level is computed over its adverts of the last second, and a
/// room's level is its loudest receiver's (as in `SignalFigures`).
public enum SwitchOracle: String, CaseIterable, Sendable {
    /// The room whose receiver heard the loudest latest advert (within 1 s), at once.
    case raw
    /// The room of the loudest 1-s mean (dBm), at once.
    case mean1s
    /// The room of the loudest 1-s mean once it has been the loudest at every advert for 1 s.
    case held1s
    /// A receiver's room once its last two adverts (within 1 s) both lead every other room's
    /// loudest advert of the last second by `clearLead`: a switch on two clearly louder packets.
    case pair

    /// The lead `pair` asks of both packets, dB.
    public static let clearLead = 4.0

    /// The window of a receiver's level, and how long `held1s` asks a room to lead, seconds.
    public static let window = 1.0

    /// Decision rows over one beacon's adverts (any order; published rows are skipped).
    public func decisions(of samples: [TraceSample]) -> [(time: Instant, room: String)] {
        let adverts = samples.filter { $0.publication == nil }.sorted { $0.time < $1.time }
        var recent: [String: [(time: Instant, rssi: Double)]] = [:]
        var roomOf: [String: String] = [:]
        var rows: [(time: Instant, room: String)] = []
        var current: String?
        var leader: String?
        var leaderSince = Instant(seconds: 0)
        for advert in adverts {
            roomOf[advert.node] = advert.room
            recent[advert.node, default: []].append((advert.time, Double(advert.rssi)))
            var best: (room: String, level: Double)?
            for (node, heard) in recent {
                let kept = heard.filter { advert.time.since($0.time) < Self.window }
                recent[node] = kept
                guard let last = kept.last, let room = roomOf[node] else { continue }
                let level = self == .raw ? last.rssi : kept.map(\.rssi).reduce(0, +) / Double(kept.count)
                // A tie goes to the room first by name, so that runs repeat.
                if let b = best, level < b.level || (level == b.level && room >= b.room) { continue }
                best = (room, level)
            }
            if self == .pair {
                guard advert.room != current, let mine = recent[advert.node], mine.count >= 2 else { continue }
                let quieter = min(mine[mine.count - 1].rssi, mine[mine.count - 2].rssi)
                let others = recent.filter { roomOf[$0.key] != advert.room }.values.flatMap { $0.map(\.rssi) }.max()
                guard others.map({ quieter - $0 >= Self.clearLead }) ?? true else { continue }
                current = advert.room
                rows.append((advert.time, advert.room))
                continue
            }
            guard let top = best?.room else { continue }
            if top != leader {
                leader = top
                leaderSince = advert.time
            }
            guard top != current else { continue }
            if self == .held1s, current != nil, advert.time.since(leaderSince) < Self.window { continue }
            current = top
            rows.append((advert.time, top))
        }
        return rows
    }
}
