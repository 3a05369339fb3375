import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// `NAME.motion.csv` (docs/Files.md "Motion file"): read beside a trace by replay, learn and
/// evaluate; a row that cannot be read is an error naming the file and the line.
@Suite struct MotionFileTests {
    @Test func rowsAreReadInOrderAndWrittenBackAlike() throws {
        let trace = try temporaryFile(smallTrace, name: "walk.trace.csv")
        let motionPath = MotionFileParser.path(besideTrace: trace)
        #expect(motionPath.hasSuffix("/walk.motion.csv"))
        try "time,room,occupied\n1.200,hall,1\n4.000,hall,0\n4.000,kitchen,1\n".write(toFile: motionPath, atomically: true, encoding: .utf8)
        let rows = try #require(try TraceFile.motion(besideTrace: trace))
        #expect(rows == [
            MotionSample(time: Instant(seconds: 1.2), room: "hall", occupied: true),
            MotionSample(time: Instant(seconds: 4), room: "hall", occupied: false),
            MotionSample(time: Instant(seconds: 4), room: "kitchen", occupied: true),
        ])
        #expect(rows.map(MotionFileParser.row) == ["1.200,hall,1", "4.000,hall,0", "4.000,kitchen,1"])
        #expect(MotionFileParser.path(besideTrace: "/x/record.csv") == "/x/record.motion.csv")
    }

    /// What `run --record` writes beside its trace reads back as the same rows, and a file that
    /// cannot be created is refused naming it.
    @Test func theRecorderWritesWhatReplayReads() throws {
        let trace = try temporaryFile(smallTrace, name: "recorded.trace.csv")
        let recorder = try MotionRecorder(path: MotionFileParser.path(besideTrace: trace))
        recorder.record(room: "hall", occupied: true, at: Instant(seconds: 1_764_151_502.118))
        recorder.record(room: "hall", occupied: false, at: Instant(seconds: 1_764_151_530.5))
        #expect(try TraceFile.motion(besideTrace: trace) == [
            MotionSample(time: Instant(seconds: 1_764_151_502.118), room: "hall", occupied: true),
            MotionSample(time: Instant(seconds: 1_764_151_530.5), room: "hall", occupied: false),
        ])
        #expect(throws: MeasurementRecorder.OpenError.self) { try MotionRecorder(path: "/nonexistent/x.motion.csv") }
    }

    @Test func withoutAMotionFileThereIsNone() throws {
        let trace = try temporaryFile(smallTrace, name: "alone.trace.csv")
        #expect(try TraceFile.motion(besideTrace: trace) == nil)
    }

    @Test(arguments: [
        ("time,room\n", "line 1: header lacks column occupied"),
        ("time,room,occupied\n1,hall,yes\n", "line 2: occupied 'yes' is not 1 or 0"),
        ("time,room,occupied\n1,hall,1\n0.5,hall,0\n", "line 3: time goes backwards (0.5 < 1.000)"),
        ("time,room,occupied\nsoon,hall,1\n", "line 2: time 'soon' is not a number"),
        ("time,room,occupied\n1,Hall Way,1\n", "line 2: room 'Hall Way' is not a room name"),
        ("time,room,occupied\n1,not_home,1\n", "line 2: room 'not_home' is not a room name"),
        ("time,room,occupied\n1,hall\n", "line 2: too few fields (2)"),
    ])
    func aBadRowIsAnErrorNamingFileAndLine(text: String, expected: String) throws {
        let trace = try temporaryFile(smallTrace, name: "bad.trace.csv")
        let motionPath = MotionFileParser.path(besideTrace: trace)
        try text.write(toFile: motionPath, atomically: true, encoding: .utf8)
        do {
            _ = try TraceFile.motion(besideTrace: trace)
            Issue.record("no error for \(text)")
        } catch {
            #expect(error.description.hasPrefix("\(motionPath): \(expected)"), "\(error.description)")
        }
    }

    @Test func replayingWithMotionAsksMoreOfAQuietRoom() throws {
        // The small trace moves the beacon kitchen → hall at 1.5 s; a hall sensor that has seen
        // nobody for a minute (the quiet rule) keeps it in the kitchen longer.
        let samples = try TraceFile.samples(path: temporaryFile(smallTrace))
        let plain = TraceReplay.decisions(of: samples)
        let motion = [MotionSample(time: Instant(seconds: -60), room: "hall", occupied: false),
                      MotionSample(time: Instant(seconds: 0), room: "kitchen", occupied: true)]
        let held = TraceReplay.decisions(of: samples, motion: motion)
        let plainHall = try #require(plain.first { $0.decision.room == "hall" }?.time)
        let heldHall = held.first { $0.decision.room == "hall" }?.time
        #expect(heldHall.map { $0 > plainHall } ?? true, "with motion \(String(describing: heldHall)), without \(plainHall)")
    }
}
