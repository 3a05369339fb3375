import BeaconCore
import RoomDecisions

/// Turns a `WatchState` into the lines `presence-aggregator watch` prints: who is in each room,
/// each beacon's room, distance, proximity and since, each node's distance to each beacon, the
/// nodes' status and calibration, the latest events and a footer with the message counts.
///
/// Pure: the time (for "how long ago") and the width are parameters. Every line is cut to
/// `width` characters, so a narrow terminal never wraps. Times are shown in UTC.
public struct WatchRenderer: Sendable {
    /// What the first line names, e.g. `presence @ mqtt://broker.lan:1883`.
    public var title: String

    public init(title: String) {
        self.title = title
    }

    public func lines(for state: WatchState, at now: Instant, width: Int) -> [String] {
        var lines: [String] = []
        let aggregator = switch state.aggregatorOnline {
        case true?: "aggregator online"
        case false?: "aggregator OFFLINE"
        case nil: "aggregator not seen"
        }
        lines.append("\(title) · \(aggregator) · \(Self.clock(now)) UTC")

        lines.append("")
        lines.append("ROOMS")
        let roomNames = state.roomNames
        if roomNames.isEmpty {
            lines.append("  (no rooms yet: waiting for the aggregator and the nodes)")
        } else {
            let sensors = state.motion != nil
            lines += Self.table(roomNames.map { room in
                let occupants = (state.rooms[room] ?? []).map(\.name)
                var row = [room, occupants.isEmpty ? "-" : occupants.joined(separator: ", ")]
                // With motion sensors configured, each room's: what its sensors say now.
                if sensors {
                    let motion: String =
                        switch state.motion(of: room) {
                        case true?: "motion"
                        case false?: "no motion"
                        case nil: ""
                        }
                    row.append(motion)
                }
                return row
            })
        }

        let beacons = state.beacons.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        lines.append("")
        if beacons.isEmpty {
            lines.append("BEACONS")
            lines.append("  (no beacons yet)")
        } else {
            var rows = [["BEACONS", "ROOM", "DISTANCE", "PROXIMITY", "NODE", "SINCE"]]
            for beacon in beacons {
                rows.append([
                    beacon.name, beacon.room ?? "?", Self.metres(beacon.distance), beacon.room == nil ? "-" : beacon.proximity.rawValue,
                    beacon.node ?? "-", beacon.since.map { "\(Self.clock($0))  \(Self.age(now.since($0)))" } ?? "-",
                ])
            }
            lines += Self.table(rows, headed: true)

            let measuringNodes = Set(beacons.flatMap(\.readings.keys)).sorted()
            if !measuringNodes.isEmpty {
                lines.append("")
                var distanceRows = [["DISTANCE BY NODE"] + measuringNodes]
                for beacon in beacons {
                    distanceRows.append([beacon.name] + measuringNodes.map { node in
                        guard let reading = beacon.readings[node] else { return "-" }
                        guard let distance = reading.distance else { return "not heard" }
                        return "\(Self.metres(distance)) \(reading.proximity.rawValue)"
                    })
                }
                lines += Self.table(distanceRows, headed: true)
            }
        }

        lines.append("")
        if state.nodeIDs.isEmpty {
            lines.append("NODES")
            lines.append("  (no nodes yet)")
        } else {
            // The kind, and the messages the aggregator refused, only where a foreign node
            // (ESPresense, a gateway) is among our agents.
            let mixed = state.nodes.values.contains { $0.foreignKind != nil }
            // The offset and its state once the nodes calibrate each other (a node beacon named,
            // heard or solved); a site without node beacons keeps the table it had.
            let calibrating = state.calibration != nil
                || state.nodes.values.contains { $0.nodeBeacon != nil || !$0.heardNodeBeacons.isEmpty }
            var rows = [["NODES", "ROOM", "STATUS"] + (mixed ? ["KIND", "REJECTED"] : []) + (calibrating ? ["OFFSET", "CALIBRATION"] : [])]
            for id in state.nodeIDs {
                let node = state.nodes[id]
                let status = switch node?.online {
                case true?: "online"
                case false?: "OFFLINE"
                case nil: "?"
                }
                let kind = switch node?.foreignKind {
                case nil: "agent"
                case "espresense"?: "ESPresense"
                case let other?: other
                }
                rows.append([id, node?.room ?? "?", status] + (mixed ? [kind, node?.rejected.map(String.init) ?? "-"] : [])
                    + (calibrating ? Self.calibration(of: id, node, in: state) : []))
            }
            lines += Self.table(rows, headed: true)
            if let calibration = state.calibration {
                lines += Self.calibrationFooter(calibration, applications: state.calibrationApplications, at: now)
            }
        }

        lines.append("")
        lines.append("EVENTS")
        if state.events.isEmpty {
            lines.append("  (none since watch started)")
        } else {
            lines += Self.table(state.events.reversed().map { event in
                let who = state.beacons[event.id]?.name ?? event.id
                let what: String = switch event.type {
                case "arrived": "arrived in \(event.to ?? "?")"
                case "departed": "left \(event.from ?? "?") (not_home)"
                case "room_changed": "\(event.from ?? "?") → \(event.to ?? "?")"
                default: "\(event.type) \(event.from ?? "-") → \(event.to ?? "-")"
                }
                return [Self.clock(event.at), who, what]
            })
        }

        lines.append("")
        lines.append("\(state.messagesUsed) messages · \(state.malformedMessages) malformed ignored")
        return lines.map { Self.cut($0, to: width) }
    }

    // MARK: - Calibration

    /// How many of the solve's rejections are listed; the rest are counted.
    static let rejectionsShown = 4

    /// A node's OFFSET and CALIBRATION cells: what the solve says of it (`NodeCalibrationDisplay`);
    /// before it names the node, `calibrating…` with the node beacons it hears, or why it cannot.
    static func calibration(of id: String, _ node: WatchState.Node?, in state: WatchState) -> [String] {
        if let calibration = state.calibration,
           let shown = NodeCalibrationDisplay(node: id, in: calibration, application: state.calibrationApplications[id]) {
            return [shown.offset ?? "-", shown.state]
        }
        if node?.nodeBeacon == "refused" { return ["-", "its radio refused to advertise: no paths from it"] }
        let heard = node?.heardNodeBeacons.count ?? 0
        guard node?.nodeBeacon != nil || heard > 0 else { return ["-", "-"] }
        return ["-", "calibrating… (hears \(heard) node beacon\(heard == 1 ? "" : "s"))"]
    }

    /// When the calibration was solved, on what, how well its paths agree, and what it rejected.
    static func calibrationFooter(_ calibration: NodeCalibration, applications: [String: NodeCalibrationDisplay.Application],
                                  at now: Instant) -> [String] {
        let applied = calibration.nodes.keys.filter {
            NodeCalibrationDisplay(node: $0, in: calibration, application: applications[$0])?.applied == true
        }.count
        var lines = ["  calibration solved \(clock(calibration.solvedAt))  \(age(now.since(calibration.solvedAt))) ago · "
            + "\(applied) of \(calibration.nodes.count) applied · basis \(calibration.basis.rawValue) · "
            + "paths agree within \(NodeCalibrationDisplay.decibels(calibration.residualScale, signed: false))"]
        for rejection in calibration.rejections.prefix(rejectionsShown) {
            lines.append(NodeCalibrationDisplay.oneLine("  rejected \(rejection.kind.rawValue) \(rejection.subject): \(rejection.reason)"))
        }
        if calibration.rejections.count > rejectionsShown {
            lines.append("  … and \(calibration.rejections.count - rejectionsShown) more rejected (\(calibration.rejections.count) in all)")
        }
        return lines
    }

    // MARK: - Formatting

    /// Columns padded to their widest cell, two spaces apart, rows indented by two spaces; with
    /// `headed`, the first row is a heading and stays flush left.
    static func table(_ rows: [[String]], headed: Bool = false) -> [String] {
        let indented = rows.enumerated().map { index, row -> [String] in
            guard let first = row.first else { return row }
            return [(headed && index == 0 ? "" : "  ") + first] + row.dropFirst()
        }
        var widths: [Int] = []
        for row in indented {
            for (column, cell) in row.enumerated() {
                if column == widths.count { widths.append(0) }
                widths[column] = max(widths[column], cell.count)
            }
        }
        return indented.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line += cell
                if column < row.count - 1 { line += String(repeating: " ", count: widths[column] - cell.count + 2) }
            }
            return line
        }
    }

    /// `HH:MM:SS` of a Unix time, UTC.
    static func clock(_ instant: Instant) -> String {
        let text = ISO8601Timestamp.string(from: instant)
        let characters = Array(text)
        guard characters.count >= 19 else { return text }
        return String(characters[11..<19])
    }

    /// `3s`, `1m05s`, `2h03m`, `4d07h`; `0s` for the future (clocks of two machines differ).
    static func age(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0s" }
        let total = Int(min(seconds, 1e9))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m\(twoDigits(total % 60))s" }
        if total < 86_400 { return "\(total / 3600)h\(twoDigits(total / 60 % 60))m" }
        return "\(total / 86_400)d\(twoDigits(total / 3600 % 24))h"
    }

    /// `1.24 m` (`12.4 m` from 10 m on); `-` for none.
    static func metres(_ distance: Double?) -> String {
        guard let distance, distance.isFinite, distance >= 0 else { return "-" }
        let clamped = min(distance, 99_999)
        if clamped < 10 {
            let centimetres = Int((clamped * 100).rounded())
            return "\(centimetres / 100).\(twoDigits(centimetres % 100)) m"
        }
        let decimetres = Int((clamped * 10).rounded())
        return "\(decimetres / 10).\(decimetres % 10) m"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// At most `width` characters (at least one); a cut line ends in `…`.
    static func cut(_ line: String, to width: Int) -> String {
        let width = max(1, width)
        guard line.count > width else { return line }
        return String(line.prefix(width - 1)) + "…"
    }
}
