import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// A walk whose truth names rooms that have no receiver (issue 36), run as a user runs it: the
/// flat's real recordings without the bathroom's and the kitchen's receivers (anchor5, anchor6;
/// `RecordedData.writeFlatWithoutBathAndKitchenReceivers`).
@Suite struct RoomsWithoutReceiverTests {
    private func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-receiver-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Replaces line `number` (1-based) of a file whose lines may end in CR LF; `edit` gets its fields.
    private func edit(_ path: String, line number: Int, _ change: (inout [String]) -> Void) throws {
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
        var fields = lines[number - 1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        change(&fields)
        lines[number - 1] = fields.joined(separator: ",")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func learnReplayAndCheckConfigTakeAWalkThroughRoomsWithoutAReceiver() throws {
        let tool = try BuildProducts.executable(named: "presence-aggregator")
        let work = try directory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let walks = work + "/flat-without-two-receivers"
        try RecordedData.writeFlatWithoutBathAndKitchenReceivers(to: walks)
        let learned = try ToolRunner.run(tool, ["learn", "--traces", walks, "--output", work + "/model.json"], separateErrors: true)
        #expect(learned.status == 0, "\(learned.errors)")
        #expect(!learned.errors.contains("warning"), "\(learned.errors)")
        #expect(learned.output.contains("nodes (4): anchor1, anchor2, anchor3, anchor4"), "\(learned.output)")
        #expect(learned.output.contains("rooms (5)"), "\(learned.output)")
        // The floor plan as walked: the model moves a beacon between these rooms.
        #expect(learned.output.contains("rooms walked between: bathroom–hall, bedroom–hall, hall–living_room, kitchen–living_room"),
                "\(learned.output)")
        // Per room, which decision serves it (leave-one-out, model | physics): the model where no
        // receiver stands, physics where it is right more of the room's time.
        #expect(learned.output.contains("  bathroom: 0.632 | 0.000, model (physics never names it); 110 s, 2 recording(s)"),
                "\(learned.output)")
        #expect(learned.output.contains("  kitchen: 0.812 | 0.000, model (physics never names it); 138 s, 2 recording(s)"),
                "\(learned.output)")
        #expect(learned.output.contains("  hall: 0.624 | 0.944, physics; 393 s, 5 recording(s)"), "\(learned.output)")
        // Rooms without a receiver make levels a candidate (issue 53); judged beside the classifier,
        // leave-one-out, the classifier comes nearer to beating physics on these walks (a robot
        // crossing a 1-s hall, which sticky levels are slowest at).
        #expect(learned.output.contains("looks: the classifier (the pattern across the receivers), kept over levels (judged alike, "
            + "leave-one-out; saving at best on the typical recording -0.025 against -0.034)"), "\(learned.output)")
        #expect(learned.output.contains("verdict: "), "\(learned.output)")
        #expect(learned.output.contains("(cost: share of a recording's time decided wrong, a flap counting as 5 s of it; "
            + "judged on the typical recording: the median over the recordings of its cost against physics')"), "\(learned.output)")
        // The model alone (0.778 / 127) and the two together (0.828 / 36) both cost more than
        // physics (0.807 / 9) on the typical recording.
        #expect(learned.output.contains("verdict: physics alone costs least"), "\(learned.output)")
        let model = try SiteModelFile.load(path: work + "/model.json")
        #expect(model.rooms == ["bathroom", "bedroom", "hall", "kitchen", "living_room"])
        #expect(!model.levels)
        #expect(model.roomDecisions == [.model, .physics, .physics, .model, .physics])
        #expect(model.neighbours == [[2], [2], [0, 1, 4], [4], [2, 3]])

        // replay --model names the rooms that have no receiver (a model that decides: learned
        // unjudged, as with one walk; the judged file decides as its verdict says).
        let unjudged = try ToolRunner.run(tool, ["learn", "--traces", walks, "--output", work + "/unjudged.json", "--no-score"],
                                          separateErrors: true)
        #expect(unjudged.status == 0, "\(unjudged.errors)")
        let replay = try ToolRunner.run(tool, ["replay", "--trace", walks + "/flat-test_robot.trace.csv", "--model", work + "/unjudged.json"],
                                        separateErrors: true)
        #expect(replay.status == 0, "\(replay.errors)")
        let rooms = Set(replay.output.split(separator: "\n").dropFirst().compactMap { row in
            model.rooms.first { row.contains(",\($0),") }
        })
        #expect(rooms.contains("bathroom") && rooms.contains("kitchen"), "\(rooms)")
        // run loads a model file as check-config does.
        let check = try ToolRunner.run(tool, ["check-config", "--model", work + "/model.json"], separateErrors: true)
        #expect(check.status == 0 && check.output.contains("5 rooms, 4 nodes"), "\(check.output)\(check.errors)")
    }

    @Test func aMisspeltRoomIsAWarningAndAMalformedOneAnErrorBothNamingWhatWasMeant() throws {
        let tool = try BuildProducts.executable(named: "presence-aggregator")
        let work = try directory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let walks = work + "/walk"
        try RecordedData.writeFlatWithoutBathAndKitchenReceivers(to: walks, names: ["flat-calib2", "flat-calib3"])
        // 'bedrom' is a good room name, one letter from the bedroom's receiver: learned, with a warning.
        try edit(walks + "/flat-calib3.truth.csv", line: 100) { $0[2] = "bedrom" }
        let warned = try ToolRunner.run(tool, ["learn", "--traces", walks, "--output", work + "/m.json"], separateErrors: true)
        #expect(warned.status == 0, "\(warned.errors)")
        #expect(warned.errors.contains("learn: warning: \(walks)/flat-calib3.truth.csv: line 100: room 'bedrom' has no receiver "
            + "in the trace; did you mean 'bedroom'?"), "\(warned.errors)")
        // 'Bathroom' is no room name: an error naming file and line, and the room the walk named before.
        try edit(walks + "/flat-calib2.truth.csv", line: 250) { $0[2] = "Bathroom" }
        let refused = try ToolRunner.run(tool, ["learn", "--traces", walks, "--output", work + "/m2.json"], separateErrors: true)
        #expect(refused.status == 2)
        #expect(refused.errors.contains("\(walks)/flat-calib2.truth.csv: line 250: room 'Bathroom' is not a room name"), "\(refused.errors)")
        #expect(refused.errors.contains("did you mean 'bathroom'?"), "\(refused.errors)")
        #expect(!FileManager.default.fileExists(atPath: work + "/m2.json"))
    }

    @Test func aRoomOnTwoFloorsIsAnErrorNamingBothFilesAndLines() throws {
        let tool = try BuildProducts.executable(named: "presence-aggregator")
        let work = try directory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let walks = work + "/walk"
        try RecordedData.writeFlatWithoutBathAndKitchenReceivers(to: walks, names: ["flat-calib2", "flat-calib3"])
        for (name, floor) in [("flat-calib2", "ground"), ("flat-calib3", "upstairs")] {
            let path = walks + "/" + name + ".truth.csv"
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
            let withFloors = [lines[0] + ",floor"] + lines.dropFirst().map { $0 + "," + floor }
            try (withFloors.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        let result = try ToolRunner.run(tool, ["learn", "--traces", walks, "--output", work + "/m.json"], separateErrors: true)
        #expect(result.status == 2)
        #expect(result.errors.contains("learn: \(walks)/flat-calib3.truth.csv: line 2: room 'hall' is on floor 'upstairs' here "
            + "but on 'ground' in \(walks)/flat-calib2.truth.csv: line 89"), "\(result.errors)")
    }
}
