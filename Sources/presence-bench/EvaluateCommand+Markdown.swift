import Foundation

/// `evaluate --markdown`: the report as the results page (docs/Results.md), so the README and the
/// articles link one page a command wrote instead of copying figures by hand.
extension EvaluateCommand {
    /// The sites in the order the page shows them, with what a reader needs to know of each.
    static let siteDescriptions: [(name: String, title: String, what: String)] = [
        ("danis", "Daniş hall", "one beacon carried along nine walks in an open 20 × 18 m hall, 12 receivers in four zones, truth from a camera"),
        ("sal", "SAL bay", "a car (four recordings) and a person (one) going in and out of a test bay, six receivers inside and four outside, truth from photosensors"),
        ("flat", "Furnished flat", "a robot carrying the tag through a five-room flat, six receivers, truth from its LiDAR"),
        ("house", "Real house, radio alone", "a wristband on a person following a script through a furnished two-floor house (the SPHERE Challenge, Twomey et al. 2016, arXiv 1603.00797; not in this repository: `--house DIR`), three of four receivers on, truth in the receivers' rooms, its PIR sensors ignored"),
        ("house-pir", "Real house, with its PIRs", "the same recordings with the house's PIR sensor in every room read beside the radio"),
        ("house-rooms", "Real house, nine rooms, radio alone", "the same house's walks with the truth in its nine rooms (six without a receiver, the landing `stairs` among them), each pair of walks made with the same receivers scored both ways: the site model learned from one walk decides the other, physics and the peers decide each walk once; **floors**: the share of truth rows decided on the true floor, the landing's rows left out and a decided `stairs` counted wrong, physics' `upstairs` counted as the first floor"),
        ("house-rooms-pir", "Real house, nine rooms, with its PIRs", "the same, the house's PIR sensors read beside the radio when deciding (the model is learned from the same walk)"),
    ]

    /// The rows of every table: the report's key for the way of deciding, and its name on the page.
    static let markdownRows: [(mode: String, title: String)] = [
        ("defaults", "**this aggregator, defaults**"),
        ("learned", "site model learned from the other recordings (`learn`'s verdict, leave-one-out)"),
        (oneWalkMode.key, "site model learned from one walk (`learn` on one recording), scoring the other"),
        ("bermuda", "Bermuda 0.8's rule (as `evaluate` replays it)"),
        ("mqttRoom", "Home Assistant's `mqtt_room` rule (as `evaluate` replays it)"),
        ("baseline", "strongest raw RSSI in the last 1 s"),
    ]

    static func resultsPage(_ report: Report, commit: String) -> String {
        var lines = [
            "Written by `presence-bench evaluate --markdown` on commit \(commit); do not edit by hand, run it again.",
            "",
            "# Results on recordings by others",
            "",
            "Every recording replayed through the agents' tracking and the aggregator's decision, one set of",
            "defaults for every site, beside the peers' rules on the same advertisements. Per site: **mean",
            "accuracy** (per recording the share of truth rows whose decided room is the true one, then the",
            "mean), **flaps** (changes of the decided room beyond the true changes it followed, every change",
            "counted, also where the truth has no row; summed), **median switch** (per recording the median",
            "time from a true change until the first decision for the new room, then the median of those)",
            "and **missed** (true changes with no decision for their room before the next true change), as",
            "the shared yardstick scores them. The recordings and their licences: [data/README.md](../data/README.md).",
            "",
        ]
        // The shared sites in their order, then any other (`--traces DIR`) under its own name.
        let known = Set(siteDescriptions.map(\.name))
        let sites = siteDescriptions.filter { report.sites[$0.name] != nil }
            + report.sites.keys.filter { !known.contains($0) }.sorted().map { name in
                (name: name, title: name, what: "the recordings of \(report.sites[name]?.directory ?? name)")
            }
        lines += ["| method | " + sites.map(\.title).joined(separator: " | ") + " |",
                  "|---" + String(repeating: "|---", count: sites.count) + "|"]
        for row in markdownRows {
            let cells = sites.map { site in mode(of: row.mode, in: report.sites[site.name]).map(compact) ?? "—" }
            lines.append("| \(row.title) | " + cells.joined(separator: " | ") + " |")
        }
        lines += ["", "Each cell: mean accuracy / flaps / median switch / missed (and the floors right, where given).", ""]
        for site in sites {
            guard let siteReport = report.sites[site.name] else { continue }
            let option = known.contains(site.name) ? " (`--site \(site.name)`)" : ""
            let withFloors = markdownRows.contains { mode(of: $0.mode, in: siteReport)?.floors != nil }
            lines += ["## \(site.title)", "", "\(siteReport.recordings) recordings: \(site.what)\(option).", "",
                      "| method | mean accuracy | flaps | median switch | missed | true changes |" + (withFloors ? " floors |" : ""),
                      "|---|---|---|---|---|---|" + (withFloors ? "---|" : "")]
            for row in markdownRows {
                guard let mode = mode(of: row.mode, in: siteReport) else { continue }
                let summary = mode.summary
                lines.append("| \(row.title) | \(String(format: "%.3f", summary.meanAccuracy)) | \(summary.flaps) | "
                             + "\(seconds(summary.medianSwitchLatency)) | \(summary.missedChanges) | \(summary.trueChanges) |"
                             + (withFloors ? " \(mode.floors.map { String(format: "%.3f", $0) } ?? "—") |" : ""))
            }
            lines.append("")
        }
        lines += [
            "## Not on this page",
            "",
            "The peers' rules are `evaluate`'s own replays of them. Home Assistant's `mqtt_room` decides as the",
            "shared yardstick's replay of it does; the data README's figures for Bermuda's rule and the baseline",
            "(the yardstick's replays) differ a little in flaps and switch times. Simulated motion sensors",
            "(`--motion`), ESPresense nodes",
            "(`--espresense`) and the grid of decision settings (`--grid`) print as JSON with",
            "`presence-bench evaluate`. How a room is decided: the Room decisions article",
            "([RoomDecisions.md](../Sources/PresenceAggregator/PresenceAggregator.docc/RoomDecisions.md)); what was",
            "tried on the way: [docs/research/](research/README.md).",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func mode(of mode: String, in site: SiteReport?) -> ModeReport? {
        guard let site else { return nil }
        switch mode {
        case "bermuda": return site.bermuda
        case "mqttRoom": return site.mqttRoom
        case "baseline": return site.baseline
        default: return site.modes[mode]
        }
    }

    private static func compact(_ mode: ModeReport) -> String {
        let summary = mode.summary
        return "\(String(format: "%.3f", summary.meanAccuracy)) / \(summary.flaps) / \(seconds(summary.medianSwitchLatency)) / \(summary.missedChanges)"
            + (mode.floors.map { ", floors " + String(format: "%.3f", $0) } ?? "")
    }

    private static func seconds(_ value: Double?) -> String {
        value.map { String(format: "%.2f s", $0) } ?? "—"
    }

    /// The commit the figures were computed on (`git describe --always --dirty`), or "unknown"
    /// outside a git checkout.
    static func currentCommit() -> String {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "describe", "--always", "--dirty"]
        let output = Pipe()
        git.standardOutput = output
        git.standardError = FileHandle.nullDevice
        guard (try? git.run()) != nil else { return "unknown" }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        git.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return git.terminationStatus == 0 && !text.isEmpty ? "`\(text)`" : "unknown"
    }
}
