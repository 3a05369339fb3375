import BeaconCore
import RoomDecisions
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// A truth names the site's rooms, those with a receiver and those without (issue 36): a room no
/// node serves is learned like any other. A room that looks like a misspelt node room is a warning
/// naming the line and the room meant; a room that is no name stays an error naming the line.
@Suite("Truth rooms without a receiver, and misspelt ones")
struct TruthRoomTests {
    /// The flat's real calib3 trace beside a copy of its real truth in which line `line` names `room`.
    private func flatRecording(truthLine line: Int, room: String) throws -> (directory: String, truth: String) {
        let source = try RecordedData.path("traces-flat")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("truth-rooms-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source + "/flat-calib3.trace.csv", toPath: directory + "/flat-calib3.trace.csv")
        // The file's lines end in CRLF, one Character to Swift: split on the bytes.
        var lines = try String(contentsOfFile: source + "/flat-calib3.truth.csv", encoding: .utf8)
            .utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        var fields = lines[line - 1].split(separator: ",").map(String.init)
        fields[2] = room + "\r"
        lines[line - 1] = fields.joined(separator: ",")
        let truth = directory + "/flat-calib3.truth.csv"
        try lines.joined(separator: "\n").write(toFile: truth, atomically: true, encoding: .utf8)
        return (directory, truth)
    }

    @Test("a room no node serves is a room without a receiver: loaded, without a word")
    func roomWithoutReceiver() throws {
        let (directory, truth) = try flatRecording(truthLine: 40, room: "garage")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var warnings: [String] = []
        let recordings = try SiteModelEvaluation.loadRecordings(directory: directory, names: ["flat-calib3.trace.csv", "flat-calib3.truth.csv"]) {
            warnings.append($0)
        }
        #expect(recordings.first?.truth.contains { $0.room == "garage" } == true)
        #expect(warnings.isEmpty, "\(warnings) \(truth)")
    }

    @Test("a room one letter from a node's room is a warning naming the line and the room meant")
    func misspeltRoomWarns() throws {
        let (directory, truth) = try flatRecording(truthLine: 40, room: "bedrom")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var warnings: [String] = []
        _ = try SiteModelEvaluation.loadRecordings(directory: directory, names: ["flat-calib3.trace.csv", "flat-calib3.truth.csv"]) {
            warnings.append($0)
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("\(truth): line 40: room 'bedrom' has no receiver in the trace; did you mean 'bedroom'? "
            + "(its rooms: bathroom, bedroom, hall, kitchen, living_room;") == true, "\(warnings)")
    }

    @Test("a room that is no name is an error naming the line, and the room it was probably meant to be")
    func malformedRoomNamesWhatWasMeant() throws {
        let (directory, truth) = try flatRecording(truthLine: 40, room: "Living Room")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try SiteModelEvaluation.loadRecordings(directory: directory, names: ["flat-calib3.trace.csv", "flat-calib3.truth.csv"])
            Issue.record("'Living Room' was accepted")
        } catch {
            #expect("\(error)".hasPrefix("\(truth): line 40: room 'Living Room' is not a room name ("), "\(error)")
            #expect("\(error)".hasSuffix("; did you mean 'living_room'?"), "\(error)")
        }
    }

    @Test("what is close and what is not", arguments: [
        ("Kitchen", "kitchen"), ("living room", "living_room"), ("kitchn", "kitchen"), ("bedrooom", "bedroom"),
        ("bed2", nil), ("garage", nil), ("wc", nil), ("kitchen", nil), ("stairs", nil), ("upstair", "upstairs"),
    ] as [(String, String?)])
    func suggestions(name: String, meant: String?) {
        #expect(RoomNameSuggestion.closest(to: name, among: ["kitchen", "living_room", "bedroom", "bed1", "hall", "upstairs"]) == meant)
    }

    @Test("the real truth loads; not_home is always a room a truth may name")
    func realTruthAndNotHome() throws {
        let source = try RecordedData.path("traces-flat")
        let samples = try TraceFile.samples(path: source + "/flat-calib3.trace.csv")
        let truth = try TraceFile.checkedTruth(path: source + "/flat-calib3.truth.csv", nodeRooms: TraceFile.rooms(of: samples))
        #expect(!truth.rows.isEmpty && truth.warnings.isEmpty)
        let (directory, path) = try flatRecording(truthLine: 2, room: RoomDecision.notHome)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try TraceFile.checkedTruth(path: path, nodeRooms: TraceFile.rooms(of: samples)).rows.first?.room == RoomDecision.notHome)
        #expect(try TraceFile.truth(path: path).count == truth.rows.count)
    }
}
