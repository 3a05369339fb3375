import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

private func measurement(of beacon: BeaconID, by node: String, rssiFiltered: Double, measuredPower: Double? = nil) -> ReceivedMeasurement {
    var measured = ReceivedMeasurement(beacon: beacon, node: node, room: node, rssiFiltered: rssiFiltered, sigma: 1, distance: 5,
                                       proximity: .far, rssi: rssiFiltered)
    measured.measuredPower = measuredPower
    return measured
}

private let sample = NodeCalibration(
    nodes: [
        "kitchen": NodeOffset(offset: -3.14, power: 0.8, standardError: 0.41, pairs: 5, samples: 3000, confident: true),
        "hall": NodeOffset(offset: 2, standardError: 1.6, pairs: 1, samples: 600, confident: false, reason: "1 path(s) heard both ways; 2 needed"),
    ],
    basis: .statedPower,
    rejections: [NodeCalibrationRejection(kind: .blockedPath, subject: "hall→study", reason: "9.5 dB weaker: blocked one way")],
    residualScale: 0.42, solvedAt: Instant(seconds: 1_796_000_000))

@Suite("Node calibration in the aggregator")
struct NodeCalibrationStateTests {
    @Test("the calibration is saved to a real file and read back as it was; a missing file is no calibration yet")
    func fileRoundTrip() throws {
        let directory = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + NodeCalibrationFile.name
        #expect(try NodeCalibrationFile.load(path: path) == nil)
        try NodeCalibrationFile.save(sample, path: path)
        let restored = try #require(try NodeCalibrationFile.load(path: path))
        #expect(restored == sample)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        // Saved again over the old one: the new one is what is read.
        var next = sample
        next.nodes["kitchen"]?.offset = -2.5
        try NodeCalibrationFile.save(next, path: path)
        #expect(try NodeCalibrationFile.load(path: path)?.nodes["kitchen"]?.offset == -2.5)
    }

    @Test("a damaged calibration file is refused with its path and the field at fault, and left where it is")
    func damagedFile() throws {
        let directory = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + NodeCalibrationFile.name
        try #"{"solvedAt": "2026-12-07T21:00:00.000Z", "basis": "statedPower", "nodes": {"kitchen": {"offset": "loud"}}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try NodeCalibrationFile.load(path: path)
        } throws: { error in
            let text = "\(error)"
            return text.contains(path) && text.contains("nodes.kitchen.offset")
        }
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(throws: NodeCalibrationFile.Failure.self) { try NodeCalibrationFile.save(sample, path: directory + "/missing/x.json") }
    }

    @Test("a restarted aggregator applies the offsets it was confident of at once, and only those")
    func restoredOffsetsApply() {
        let state = NodeCalibrationState(configured: ["kitchen": "ibeacon-node-kitchen"], restored: sample)
        #expect(state.offset(for: "kitchen") == -3.14)
        #expect(state.offset(for: "hall") == nil)
        #expect(state.offset(for: "study") == nil)
    }

    @Test("node beacons' measurements are calibration's, solved once a minute; a node that loses its pairs keeps its confident offset")
    func collectsAndSolves() {
        let beacons: [BeaconID: String] = ["ibeacon-node-a": "a", "ibeacon-node-b": "b", "ibeacon-node-c": "c"]
        let offsets = ["a": 4.0, "b": -1.0, "c": -3.0]
        let loss = ["ab": 70.0, "ac": 75.0, "bc": 68.0]
        var state = NodeCalibrationState(configured: Dictionary(uniqueKeysWithValues: beacons.map { ($1, $0) }), parameters: NodeCalibrationParameters(minimumSamples: 10))
        let someone = state.receive(measurement(of: "ibeacon-someone", by: "a", rssiFiltered: -60), at: Instant(seconds: 0))
        #expect(!someone)
        var solved: NodeCalibration?
        for second in stride(from: 0.0, through: 600, by: 5) {
            for (beacon, transmitter) in beacons {
                for receiver in ["a", "b", "c"] where receiver != transmitter {
                    let level = offsets[receiver]! - loss[min(transmitter, receiver) + max(transmitter, receiver)]!
                    let consumed = state.receive(measurement(of: beacon, by: receiver, rssiFiltered: level, measuredPower: -59),
                                                 at: Instant(seconds: second))
                    #expect(consumed)
                }
            }
            if let result = state.solveIfDue(at: Instant(seconds: second)) { solved = result }
        }
        let result = try! #require(solved)
        #expect(result.basis == .statedPower)
        #expect(abs(state.offset(for: "a")! - 4) < 0.01)
        #expect(abs(state.offset(for: "c")! + 3) < 0.01)
        // Ten minutes later with nothing heard: nothing new is confident, the last confident offsets stand.
        let early = state.solveIfDue(at: Instant(seconds: 630))
        #expect(early == nil)
        _ = state.solveIfDue(at: Instant(seconds: 1300))
        #expect(abs(state.offset(for: "b")! + 1) < 0.01)
    }

    @Test("a node's beacon heard before its info named it is that node's once named, not an outsider (as the kernel harness met it)")
    func heardBeforeItsInfo() throws {
        let (a, b) = (NodeBeacon(node: "node-a").id, NodeBeacon(node: "node-b").id)
        var state = NodeCalibrationState(parameters: NodeCalibrationParameters(minimumSamples: 5))
        state.learn(node: "node-a", beacon: a)
        // node-a hears node-b's beacon before node-b's info arrives: filed under the beacon's id.
        for second in 0..<20 {
            _ = state.receive(measurement(of: b, by: "node-a", rssiFiltered: -60, measuredPower: -41), at: Instant(seconds: Double(second)))
        }
        state.learn(node: "node-b", beacon: b)
        for second in 20..<40 {
            _ = state.receive(measurement(of: a, by: "node-b", rssiFiltered: -60, measuredPower: -41), at: Instant(seconds: Double(second)))
        }
        let result = state.solveIfDue(at: Instant(seconds: 40))
        let solved = try #require(result)
        #expect(solved.rejections.isEmpty, "\(solved.rejections)")
        #expect(solved.nodes["node-a"]?.pairs == 1 && solved.nodes["node-b"]?.pairs == 1)
        #expect(solved.basis == .statedPower)
    }

    @Test("a corrected measurement reads the offset lower and its distance grows; a silence stays a silence")
    func correctedMeasurement() {
        let measured = measurement(of: "keys", by: "kitchen", rssiFiltered: -70)
        let corrected = measured.correctedForReceiverOffset(6, pathLossExponent: 1.5)
        #expect(corrected.rssiFiltered == -76)
        #expect(corrected.rssi == -76)
        #expect(abs(corrected.distance! - 5 * pow(10, 6 / 15.0)) < 1e-9)
        let silence = ReceivedMeasurement(beacon: "keys", node: "kitchen", room: "kitchen", distance: nil, proximity: .unknown)
        #expect(silence.correctedForReceiverOffset(6, pathLossExponent: 1.5).isSilence)
    }

    @Test("a measurement's measuredPower is read; a wrong type leaves it out without refusing the measurement")
    func measuredPowerParsed() throws {
        let payload = #"{"beacon":"ibeacon-5350480e-5245-4341-4c4c-000000000001-1-1","node":"b","room":"b","proximity":"far","distance":4,"rssiFiltered":-70,"measuredPower":-59}"#
        #expect(try ReceivedMeasurement(payload: Array(payload.utf8), topicNode: "b").measuredPower == -59)
        let odd = payload.replacingOccurrences(of: "-59", with: "\"-59\"")
        #expect(try ReceivedMeasurement(payload: Array(odd.utf8), topicNode: "b").measuredPower == nil)
    }

    @Test("the aggregator configured with node beacons places them in no room, publishes the calibration retained and corrects a node's measurements once confident")
    func aggregatorAppliesConfidentOffsets() throws {
        let nodeBeacon = { (minor: Int) in BeaconID(rawValue: "ibeacon-5350480e-5245-4341-4c4c-000000000001-9-\(minor)") }
        var configuration = AggregatorConfiguration.default
        configuration.homeAssistantDiscovery = false
        configuration.nodeBeacons = ["a": nodeBeacon(1), "b": nodeBeacon(2), "c": nodeBeacon(3)]
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        let offsets = ["a": 4.0, "b": -1.0, "c": -3.0]
        let start = Instant(seconds: 1_800_000_000)
        // Before any solve nothing is applied: the keys' distance is what node a said.
        let keys = BeaconID(rawValue: "ibeacon-5350480e-5245-4341-4c4c-000000000001-1-1")
        func keysHeard(at time: Instant) -> [AggregatorPublication] {
            core.receive(ReceivedMeasurement(beacon: keys, node: "a", room: "kitchen", rssiFiltered: -70, sigma: 1, distance: 2,
                                             proximity: .near), at: time)
        }
        var published: [AggregatorPublication] = []
        for second in stride(from: 0.0, through: 600, by: 2) {
            for (node, beacon) in configuration.nodeBeacons {
                for receiver in ["a", "b", "c"] where receiver != node {
                    var heard = measurement(of: beacon, by: receiver, rssiFiltered: offsets[receiver]! - 70, measuredPower: -59)
                    heard.room = receiver
                    let published = core.receive(heard, at: start + second)
                    #expect(published.isEmpty)
                }
            }
            published += core.tick(at: start + second).filter { $0.topic == "presence/calibration" }
        }
        // Retained, once at the first tick and once a minute after.
        #expect(published.count == 11 && published.allSatisfy(\.retain))
        #expect(published.last?.payload.contains(#""confident":true"#) == true)
        #expect(core.location(of: nodeBeacon(1)) == nil)
        let taken = core.takeSolvedCalibration()
        let solved = try #require(taken)
        #expect(solved.applicableOffsets.count == 3)
        #expect(abs(core.nodeCalibration.offset(for: "a")! - 4) < 0.01)
        _ = keysHeard(at: start + 601)
        _ = core.tick(at: start + 700)
        let distance = try #require(core.location(of: keys)?.distance)
        let n = configuration.decision.pathLossExponent
        #expect(abs(distance - 2 * pow(10, 4 / (10 * n))) < 0.05)
    }

    @Test("nodeBeacons in the configuration file: each node's beacon read; a beacon that is not a canonical id, or named twice, is an error naming the node")
    func nodeBeaconsConfiguration() throws {
        let directory = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/aggregator.yaml"
        let beacon = "ibeacon-5350480e-5245-4341-4c4c-000000000001-9-1"
        try "nodeBeacons:\n  kitchen-1: \(beacon)\n".write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try AggregatorConfiguration.load(file: path, environment: [:], flags: [:])
        #expect(configuration.nodeBeacons == ["kitchen-1": BeaconID(rawValue: beacon)])
        try "nodeBeacons:\n  kitchen-1: \(beacon)\n  hall-1: \(beacon)\n  study-1: loud\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try AggregatorConfiguration.load(file: path, environment: [:], flags: [:])
        } throws: { error in
            let text = "\(error)"
            return text.contains("nodeBeacons.hall-1") && text.contains("kitchen-1") && text.contains("nodeBeacons.study-1")
        }
    }
}
