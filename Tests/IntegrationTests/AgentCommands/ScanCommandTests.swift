import Foundation
import Testing
import TestSupport

/// `presence-agent scan` as a user runs it: the built binary, a real capture, its output lines.
@Suite struct ScanCommandTests {
    func scan(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(try BuildProducts.executable(named: "presence-agent"), ["scan"] + arguments, separateErrors: true)
    }

    @Test func theRealCaptureGives412ReportsAndElevenIBeacons() throws {
        let capture = try RecordedData.path(RecordedData.horizonCapture)
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

    /// Checking an enrolment before running the agent: a phone rotating its resolvable private
    /// address under a key of the agent's file is named on every line by its id, a known beacon by
    /// its alias, a phone with a key nobody has not at all — and the key is printed nowhere. A list
    /// the broker pushed (kept in the state directory) replaces the file's, as in the agent.
    @Test func knownPhonesAndBeaconsAreNamedByTheirIdNeverByTheirKey() throws {
        let aliceKey = "ec0234a357c8ad05341010a60a397d9b", uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
        let work = NSTemporaryDirectory() + "scan-known-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work + "/state", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        func person(_ name: String, _ minor: Int, irk: String?) -> String {
            #"{"name":"\#(name)","uuid":"\#(uuid)","major":1,"minor":\#(minor),"measuredPower":-59,"address":"c4:a1:b2:c3:d4:0\#(minor)""#
                + (irk.map { #","irk":"\#($0)""# } ?? "") + "}"
        }
        let scenario = #"{"rooms":[{"id":"kitchen","x":0,"y":0,"width":5,"height":4}],"nodes":[{"id":"kitchen-1","room":"kitchen","x":2.5,"y":2}],"#
            + #""people":["# + [person("Alice", 1, irk: aliceKey), person("Bob", 2, irk: nil),
                                person("Dave", 4, irk: "0f0e0d0c0b0a09080706050403020100")].joined(separator: ",")
            + #"],"seed":19,"pathLossExponent":2.7,"noiseSigma":3,"wallLoss":6,"advertisingInterval":1,"sensitivity":-98,"#
            + #""dwellMin":1000,"dwellMax":1000,"walkingSpeed":1.2,"addressRotation":20}"#
        try scenario.write(toFile: work + "/scenario.json", atomically: true, encoding: .utf8)
        try """
            node: kitchen-1
            room: kitchen
            beacons:
              - { irk: \(aliceKey), id: alice-phone, name: Alice's iPhone }
              - { beacon: ibeacon-\(uuid)-1-2, id: bob, name: Bob }

            """.write(toFile: work + "/agent.yaml", atomically: true, encoding: .utf8)
        let arguments = ["--source", "simulate:" + work + "/scenario.json", "--duration", "60", "--speed", "0", "--config", work + "/agent.yaml"]
        let result = try scan(arguments)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n")
        let alice = lines.filter { $0.hasSuffix(" device=alice-phone") }
        // Her address changes every 20 s: three or four addresses in a minute, every one named.
        #expect(Set(alice.map { $0.split(separator: " ")[1] }).count >= 3, "\(result.output)")
        #expect(lines.filter { $0.hasSuffix(" device=bob") }.count >= 30)
        #expect(lines.filter { $0.contains("device=") }.count == alice.count + lines.filter { $0.hasSuffix(" device=bob") }.count)
        #expect(!result.output.lowercased().contains(aliceKey) && !result.output.contains("0f0e0d0c"))

        // The broker pushed a list with Bob only: Alice's phone is no longer known.
        try #"{"revision":4,"beacons":[{"beacon":"ibeacon-\#(uuid)-1-2","id":"bob","name":"Bob"}]}"#
            .write(toFile: work + "/state/beacons.json", atomically: true, encoding: .utf8)
        let pushed = try scan(arguments + ["--state-dir", work + "/state", "--json"])
        #expect(pushed.status == 0, "\(pushed.errors)")
        #expect(!pushed.output.contains("alice-phone"))
        #expect(pushed.output.contains(#","device":"bob"}"#))

        // A state file that does not parse names the file, status 2.
        try "{oops".write(toFile: work + "/state/beacons.json", atomically: true, encoding: .utf8)
        let broken = try scan(arguments + ["--state-dir", work + "/state"])
        #expect(broken.status == 2)
        #expect(broken.errors.hasPrefix("error: \(work)/state/beacons.json: "), "\(broken.errors)")
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
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try RecordedData.path(RecordedData.horizonCapture)))
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
