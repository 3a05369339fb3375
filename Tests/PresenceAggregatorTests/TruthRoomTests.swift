import BeaconCore
import RoomDecisions
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// A truth naming a room that no node of its trace serves could never be matched by any decision:
/// scoring or learning from it would count every such row as wrong without a word. It is an error
/// naming the file and the line (issue 26).
@Suite("A truth naming an unknown room")
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

    // A well-formed name no node serves (a malformed one is refused earlier, by the truth parser).
    @Test("learn's loading names the truth file, the line and the rooms the trace does have")
    func learnNamesFileAndLine() throws {
        let (directory, truth) = try flatRecording(truthLine: 40, room: "garage")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try SiteModelEvaluation.loadRecordings(directory: directory, names: ["flat-calib3.trace.csv", "flat-calib3.truth.csv"])
            Issue.record("a truth naming 'garage' was accepted")
        } catch {
            #expect("\(error)" == "\(truth): line 40: room 'garage' is no node's room in the trace "
                + "(its rooms: bathroom, bedroom, hall, kitchen, living_room)")
        }
    }

    @Test("the real truth loads; not_home is always a room a truth may name")
    func realTruthAndNotHome() throws {
        let source = try RecordedData.path("traces-flat")
        let samples = try TraceFile.samples(path: source + "/flat-calib3.trace.csv")
        let truth = try TraceFile.truth(path: source + "/flat-calib3.truth.csv", rooms: TraceFile.rooms(of: samples))
        #expect(!truth.isEmpty)
        let (directory, path) = try flatRecording(truthLine: 2, room: RoomDecision.notHome)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try TraceFile.truth(path: path, rooms: TraceFile.rooms(of: samples)).first?.room == RoomDecision.notHome)
        // Without the trace's rooms (a caller that has none) nothing is checked.
        #expect(try TraceFile.truth(path: path).count == truth.count)
    }
}
