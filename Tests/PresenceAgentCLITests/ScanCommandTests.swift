import Foundation
import Testing
import TestSupport

/// `presence-agent scan` as a user runs it: the built binary, a real capture, its output lines.
@Suite struct ScanCommandTests {
    func scan(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(try BuildProducts.executable(named: "presence-agent"), ["scan"] + arguments, separateErrors: true)
    }

    @Test func theRealCaptureGives412ReportsAndElevenIBeacons() throws {
        let capture = try SharedData.path(SharedData.horizonCapture)
        let result = try scan(["--source", "btsnoop:" + capture, "--json"])
        #expect(result.status == 0)
        #expect(result.errors == "")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 412)

        struct Line: Decodable {
            let timestamp: String, address: String, rssi: Int?, format: String?, beacon: String
            let uuid: String?, major: Int?, minor: Int?, measuredPower: Int?, eventType: String, addressType: String
        }
        let decoded = try lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        let iBeacons = decoded.filter { $0.format == "ibeacon" }
        #expect(iBeacons.count == 11)
        #expect(iBeacons.allSatisfy { $0.measuredPower == -62 && $0.uuid == "494e5445-4c4c-495f-524f-434b535f4857" })
        let ids = Dictionary(grouping: iBeacons, by: \.beacon).mapValues(\.count)
        #expect(ids == ["ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207": 10,
                        "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20597-62207": 1])
        // Record 134 of the data README, with the RSSI the capture recorded.
        #expect(iBeacons.first?.rssi == -49)
        #expect(iBeacons.first?.address == "a4:c1:38:bf:6f:ab")
        #expect(iBeacons.allSatisfy { $0.eventType == "scan_rsp" })
        #expect(decoded.allSatisfy { $0.timestamp.hasPrefix("2021-02-01T") && $0.timestamp.hasSuffix("Z") })
        #expect(Set(decoded.map(\.address)).count == 36)
    }

    @Test func aFileThatIsNotACaptureIsOneErrorLineAndStatus2() throws {
        let notACapture = NSTemporaryDirectory() + "not-a-capture-\(UUID().uuidString).log"
        try Data("hello, this is not btsnoop\n".utf8).write(to: URL(fileURLWithPath: notACapture))
        defer { try? FileManager.default.removeItem(atPath: notACapture) }
        let result = try scan(["--source", "btsnoop:" + notACapture])
        #expect(result.status == 2)
        #expect(result.output == "")
        #expect(result.errors == "error: \(notACapture): not a btsnoop file (bad magic)\n")
    }

    @Test func aTruncatedCaptureNamesTheRecordAndKeepsWhatCameBefore() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try SharedData.path(SharedData.horizonCapture)))
        let truncated = NSTemporaryDirectory() + "truncated-\(UUID().uuidString).btsnoop"
        try bytes.prefix(7_000).write(to: URL(fileURLWithPath: truncated))
        defer { try? FileManager.default.removeItem(atPath: truncated) }
        let result = try scan(["--source", "btsnoop:" + truncated, "--json"])
        #expect(result.status == 2)
        // The three reports before the cut are printed, record 134's iBeacon among them.
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.dropFirst().first?.contains("ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207") == true)
        #expect(result.errors == "error: \(truncated): record 136 at byte 6984: truncated (needs 24 bytes, 16 left)\n")
    }

    @Test func aBadSourceIsNamed() throws {
        let result = try scan(["--source", "bluetooth"])
        #expect(result.status == 2)
        #expect(result.errors == "error: --source 'bluetooth': unknown source; expected hci0, hci:N, uart:/dev/tty…[@baud], btsnoop:FILE or simulate[:FILE]\n")
    }

    @Test func theSimulatorPrintsTheIBeaconsAndThePhoneOfTheDemoBuilding() throws {
        let result = try scan(["--source", "simulate", "--speed", "0", "--duration", "5", "--node", "office-1", "--json"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count > 20)
        // Alice's and Bob's iBeacons; Carol's phone sends no beacon, from a random address that a
        // scan without her key cannot tell from any other (mac-…).
        let beacons = lines.filter { $0.contains(#""format":"ibeacon""#) && $0.contains("fda50693-a4e2-4fb1-afcf-c6eb07647825") }
        #expect(beacons.count > 10)
        #expect(lines.filter { !beacons.contains($0) }.allSatisfy { $0.contains(#""beacon":"mac-"#) && $0.contains(#""addressType":"random""#) })
    }
}
