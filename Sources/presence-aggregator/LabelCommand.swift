import ArgumentParser
import BeaconCore
import RoomDecisions
import Foundation
import PresenceAggregator
import Timekeeping

/// `presence-aggregator label`: the person walking types the room they are entering (a name, or
/// its number in --rooms) and Enter; each line is stamped with the aggregator's clock (Unix
/// seconds, as `run --record` stamps measurements) and the truth file is written as the walk goes.
/// End of input (Ctrl-D) ends the walk.
struct LabelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Writes the ground truth of a walk: type the room you enter, then Enter; Ctrl-D ends the walk.",
        discussion: """
            Times are Unix seconds of this machine's clock, the clock `run --record` uses: run both on \
            the same machine (or machines kept in time by NTP). Blank lines are ignored; an unknown \
            room is refused and nothing is written for it.
            """
    )

    @Option(help: "The truth file to write (docs/Files.md: time,beacon,room).")
    var output: String

    @Option(help: "The beacon being carried, as the aggregator names it (canonical id).")
    var beacon: String

    @Option(help: "The site's rooms, comma-separated: only these are accepted, and 1, 2, … stand for them.")
    var rooms: String?

    @Option(help: "Seconds between truth rows while a room holds.")
    var interval: Double = 0.5

    func run() throws {
        // The canonical form when it is a beacon id the agents know; else as given (a trace's id).
        let canonical = BeaconIDSyntax.canonical(beacon) ?? beacon
        guard TopicLevelID.isValid(canonical) else {
            StandardOutput.error("label: --beacon: '\(beacon)' is not a beacon id\n")
            throw ExitCode(2)
        }
        let roomList = rooms.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } ?? []
        if let bad = roomList.first(where: { !TopicLevelID.isValid($0) }) {
            StandardOutput.error("label: --rooms: '\(bad)' is not a room id\n")
            throw ExitCode(2)
        }
        guard interval.isFinite, interval > 0 else {
            StandardOutput.error("label: --interval must be a positive number of seconds\n")
            throw ExitCode(2)
        }
        guard let file = fopen(output, "w") else {
            StandardOutput.error("label: \(output): \(String(cString: strerror(errno)))\n")
            throw ExitCode(2)
        }
        defer { fclose(file) }
        func write(_ rows: [TruthSample]) {
            for row in rows { fputs(TruthLabeler.row(row) + "\n", file) }
            fflush(file)
        }
        fputs(TruthLabeler.header + "\n", file)
        let clock = SystemClock()
        var labeler = TruthLabeler(beacon: BeaconID(rawValue: canonical), rooms: roomList, interval: interval)
        if !roomList.isEmpty {
            StandardOutput.error(roomList.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: "  ") + "\n")
        }
        while let line = readLine() {
            let now = clock.now()
            do {
                guard let room = try labeler.room(named: line) else { continue }
                write(labeler.enter(room, at: now))
                StandardOutput.error("\(ReplayCSV.fixed(now.seconds, decimals: 3)) \(room)\n")
            } catch {
                StandardOutput.error("label: \(error) — not written\n")
            }
        }
        write(labeler.finish(at: clock.now()))
    }
}
