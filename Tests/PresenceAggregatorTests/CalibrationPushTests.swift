import BeaconCore
import PresenceAggregator
import RoomDecisions
import Testing

/// A node's info as our agents publish it (docs/MQTT.md): its node beacon, and the offset it
/// measures with and whose it is (nil: an agent older than those fields).
private func info(of node: String, rssiOffset: Double = 0, source: String?) -> [UInt8] {
    let beacon = #","nodeBeacon":{"id":"\#(NodeBeacon(node: node).id.rawValue)","interval":1,"state":"advertising","measuredPower":-41}"#
    let offset = source.map { #","rssiOffset":\#(rssiOffset),"rssiOffsetSource":"\#($0)""# } ?? ""
    return Array(#"{"node":"\#(node)","room":"\#(node)","version":"1.0"\#(beacon)\#(offset)}"#.utf8)
}

private let nodes = ["a", "b", "c"]
private let start = Instant(seconds: 1_800_000_000)
private let keys = BeaconID(rawValue: "ibeacon-5350480e-5245-4341-4c4c-000000000001-1-1")

/// Ten minutes of the three nodes hearing each other's node beacons, receivers reading `offsets`
/// above the truth; returns what the aggregator published on the calibration topics.
private func hearEachOther(_ core: inout AggregatorCore, offsets: [String: Double], from: Double = 0, seconds: Double = 600)
    -> [AggregatorPublication]
{
    var published: [AggregatorPublication] = []
    for second in stride(from: from, through: from + seconds, by: 2) {
        for transmitter in nodes {
            for receiver in nodes where receiver != transmitter {
                var heard = ReceivedMeasurement(beacon: NodeBeacon(node: transmitter).id, node: receiver, room: receiver,
                                                rssiFiltered: offsets[receiver]! - 70, sigma: 1, distance: 5, proximity: .far,
                                                rssi: offsets[receiver]! - 70)
                heard.measuredPower = -41
                _ = core.receive(heard, at: start + second)
            }
        }
        published += core.tick(at: start + second).filter { $0.topic.hasSuffix("calibration") }
    }
    return published
}

private func pushes(_ published: [AggregatorPublication]) -> [String: String] {
    var out: [String: String] = [:]
    for publication in published where publication.topic.hasPrefix("presence/nodes/") {
        out[String(publication.topic.split(separator: "/")[2])] = publication.payload
    }
    return out
}

private func core() -> AggregatorCore {
    var configuration = AggregatorConfiguration.default
    configuration.homeAssistantDiscovery = false
    return AggregatorCore(configuration: configuration, softwareVersion: "test")
}

@Suite("The solved offsets pushed to the agents, applied once")
struct CalibrationPushTests {
    @Test("agents that say which offset they apply are pushed their confident offset, retained, and their measurements are not corrected again")
    func pushedToAgents() throws {
        var core = core()
        for node in nodes { _ = core.nodeInfo(node: node, payload: info(of: node, source: "none")) }
        let published = hearEachOther(&core, offsets: ["a": 4, "b": -1, "c": -3])
        let pushed = pushes(published)
        #expect(Set(pushed.keys) == Set(nodes))
        #expect(pushed["a"]?.hasPrefix(#"{"rssiOffset":4,"standardError":"#) == true, "\(pushed)")
        #expect(pushed["c"]?.hasPrefix(#"{"rssiOffset":-3,"#) == true)
        #expect(published.filter { $0.topic.hasPrefix("presence/nodes/") }.allSatisfy { $0.retain && $0.qos == 1 })
        // Once each in ten minutes of solves: the offset did not move.
        #expect(published.filter { $0.topic == "presence/nodes/a/calibration" }.count == 1)
        let payload = try #require(published.last { $0.topic == "presence/calibration" }?.payload)
        #expect(payload.contains(#""confident":true,"applied":"agent""#))
        // The agent measures with its offset: the aggregator takes nothing off its measurements.
        #expect(core.nodeCalibration.offset(for: "a") == nil)
        _ = core.receive(ReceivedMeasurement(beacon: keys, node: "a", room: "kitchen", rssiFiltered: -70, sigma: 1, distance: 2,
                                             proximity: .near), at: start + 601)
        _ = core.tick(at: start + 700)
        #expect(core.location(of: keys)?.distance == 2)
    }

    @Test("an operator's own rssiOffset wins: the solved offset is neither pushed nor applied, and the payload says both")
    func operatorWins() throws {
        var core = core()
        _ = core.nodeInfo(node: "a", payload: info(of: "a", rssiOffset: 1.5, source: "operator"))
        for node in ["b", "c"] { _ = core.nodeInfo(node: node, payload: info(of: node, source: "none")) }
        let published = hearEachOther(&core, offsets: ["a": 4, "b": -1, "c": -3])
        #expect(Set(pushes(published).keys) == ["b", "c"])
        #expect(core.nodeCalibration.offset(for: "a") == nil)
        let payload = try #require(published.last { $0.topic == "presence/calibration" }?.payload)
        #expect(payload.contains(#""a":{"offset":4.00,"#) || payload.contains(#""a":{"offset":4,"#))
        #expect(payload.contains(#""applied":"operator","operatorOffset":1.50"#) || payload.contains(#""applied":"operator","operatorOffset":1.5"#))
        // The operator takes theirs back: the solved one is pushed at once.
        let after = core.nodeInfo(node: "a", payload: info(of: "a", source: "none"))
        #expect(pushes(after)["a"]?.hasPrefix(#"{"rssiOffset":4,"#) == true)
    }

    @Test("an offset is pushed again only when it moved half a dB or more; never while it is not confident")
    func materialMovesOnly() {
        var core = core()
        for node in nodes { _ = core.nodeInfo(node: node, payload: info(of: node, source: "none")) }
        #expect(pushes(hearEachOther(&core, offsets: ["a": 0, "b": 0, "c": 0], seconds: 30)).isEmpty)
        #expect(pushes(hearEachOther(&core, offsets: ["a": 4, "b": -1, "c": -3], from: 32)).count == 3)
        // A few tenths: the solve's own noise, not a receiver that changed.
        #expect(pushes(hearEachOther(&core, offsets: ["a": 4.3, "b": -1.15, "c": -3.15], from: 634)).isEmpty)
        // A receiver that reads 2 dB more than it did: pushed again (and the others moved less than the step).
        // Two receivers that changed by a dB (the site's mean kept): those two are pushed again.
        let moved = pushes(hearEachOther(&core, offsets: ["a": 5, "b": -1, "c": -4], from: 1236))
        #expect(Set(moved.keys) == ["a", "c"])
    }

    @Test("an agent older than the fields is pushed nothing and corrected at the aggregator's input, as before")
    func olderAgentsCorrectedAtInput() throws {
        var core = core()
        for node in nodes { _ = core.nodeInfo(node: node, payload: info(of: node, source: nil)) }
        let published = hearEachOther(&core, offsets: ["a": 4, "b": -1, "c": -3])
        #expect(pushes(published).isEmpty)
        #expect(abs(try #require(core.nodeCalibration.offset(for: "a")) - 4) < 0.01)
        #expect(published.last { $0.topic == "presence/calibration" }?.payload.contains(#""applied":"aggregator""#) == true)
    }

    @Test("after a restart, the kept calibration is pushed only to an agent that does not already apply it")
    func restartPushesOnlyWhatIsMissing() throws {
        var first = core()
        for node in nodes { _ = first.nodeInfo(node: node, payload: info(of: node, source: "none")) }
        _ = hearEachOther(&first, offsets: ["a": 4, "b": -1, "c": -3])
        let taken = first.takeSolvedCalibration()
        let kept = try #require(taken)
        var restarted = core()
        restarted.restoreCalibration(kept)
        var published = restarted.nodeInfo(node: "a", payload: info(of: "a", rssiOffset: 4, source: "calibration"))
        published += restarted.nodeInfo(node: "b", payload: info(of: "b", rssiOffset: -0.8, source: "calibration"))
        published += restarted.nodeInfo(node: "c", payload: info(of: "c", source: "none"))
        published += restarted.tick(at: start + 700)
        #expect(pushes(published).keys.sorted() == ["c"])
        #expect(restarted.nodeCalibration.offset(for: "c") == nil)
    }
}
