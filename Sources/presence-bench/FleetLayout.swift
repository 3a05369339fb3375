import BeaconCore
import Foundation
import RoomDecisions

/// The site the fleet load test plays: `nodes` nodes, `nodesPerRoom` to a room (`node-000` and
/// `node-001` in `room-000`, …), and `beacons` iBeacons, each heard by `nodesPerBeacon`
/// consecutive nodes (a beacon in a campus is heard by the few nodes near it, not by all of them).
///
/// Beacon `b`'s nodes are `h, h+1, …` (mod `nodes`) with `h = b mod nodes`; at rest the first is
/// the nearest (1 m) and the others 5 m, 6 m, … away. A beacon that *moves* swaps its nearest node
/// for the last heard node in another room, and back at its next move, so every move is a room
/// change the aggregator must decide. Distances carry ±10 % of deterministic jitter per message
/// (about ±0.6 dB at the default path-loss exponent), as a node's filtered RSSI drifts between
/// heartbeats; it is far below the ≥ 8 dB lead of the nearest room, so it never flips a decision,
/// but it does make the aggregator re-publish locations, as a real site does.
struct FleetLayout {
    static let root = "presence"

    var nodes: Int
    var nodesPerRoom: Int
    var beacons: Int
    var nodesPerBeacon: Int

    var rooms: Int { (nodes + nodesPerRoom - 1) / nodesPerRoom }
    /// (beacon, node) pairs: each one publishes its own measurements.
    var pairs: Int { beacons * nodesPerBeacon }

    func nodeName(_ node: Int) -> String { "node-" + Self.padded(node) }
    func roomIndex(ofNode node: Int) -> Int { node / nodesPerRoom }
    func roomName(_ room: Int) -> String { "room-" + Self.padded(room) }

    /// The `slot`-th node that hears `beacon`.
    func node(beacon: Int, slot: Int) -> Int { (beacon % nodes + slot) % nodes }

    func beaconID(_ beacon: Int) -> BeaconID {
        BeaconID(rawValue: "ibeacon-\(SyntheticBeacons.uuidText)-\(major(beacon))-\(minor(beacon))")
    }
    func major(_ beacon: Int) -> UInt16 { UInt16(truncatingIfNeeded: beacon / 1000) }
    func minor(_ beacon: Int) -> UInt16 { UInt16(truncatingIfNeeded: beacon % 1000) }

    /// The slot a moving beacon's nearest node moves to: the last heard node in another room than
    /// slot 0's; nil when every node that hears the beacon is in one room (it cannot change rooms).
    func moveSlot(beacon: Int) -> Int? {
        let home = roomIndex(ofNode: node(beacon: beacon, slot: 0))
        return (1..<nodesPerBeacon).last { roomIndex(ofNode: node(beacon: beacon, slot: $0)) != home }
    }

    /// The room `beacon` is in when its nearest node is `nearestSlot`'s.
    func room(beacon: Int, nearestSlot: Int) -> Int { roomIndex(ofNode: node(beacon: beacon, slot: nearestSlot)) }

    /// Metres from the node in `slot` with the nearest node in `nearestSlot`, before jitter.
    func baseDistance(slot: Int, nearestSlot: Int) -> Double {
        if slot == nearestSlot { return 1 }
        // The others, in slot order, at 5 m, 6 m, 7 m, …
        return 5 + Double(slot < nearestSlot ? slot : slot - 1)
    }

    /// The measurement topic of a pair.
    func topic(beacon: Int, slot: Int) -> String {
        "\(Self.root)/beacons/\(beaconID(beacon).rawValue)/\(nodeName(node(beacon: beacon, slot: slot)))"
    }

    /// The measurement JSON a node publishes (`MeasurementPayload`, as the agent), for message
    /// number `sequence` of the pair (it only varies the jitter).
    func payload(beacon: Int, slot: Int, nearestSlot: Int, sequence: Int, time: Instant) -> String {
        let distance = distance(beacon: beacon, slot: slot, nearestSlot: nearestSlot, sequence: sequence)
        let n = DistanceModel.default.pathLossExponent
        let rssiFiltered = -59 - 10 * n * log10(distance)
        let id = beaconID(beacon)
        let node = node(beacon: beacon, slot: slot)
        return MeasurementPayload(
            id: id.rawValue, beacon: id, node: nodeName(node), room: roomName(roomIndex(ofNode: node)),
            rssi: Int(rssiFiltered.rounded()), rssiFiltered: rssiFiltered, sigma: 1.5, measuredPower: -59,
            distance: distance, proximity: Self.proximity(distance),
            address: BluetoothAddress(rawValue: 0xC0_00_00_00_00_00 | UInt64(beacon)), format: "ibeacon",
            uuid: BeaconUUID(SyntheticBeacons.uuidText), major: major(beacon), minor: minor(beacon), timestamp: time
        ).json
    }

    /// The distance the payload of message `sequence` of the pair carries: the base distance with
    /// its jitter.
    func distance(beacon: Int, slot: Int, nearestSlot: Int, sequence: Int) -> Double {
        let jitter = 1 + 0.1 * Double(SyntheticBeacons.noise(beacon: beacon &* 7 &+ slot, round: sequence)) / 4
        return baseDistance(slot: slot, nearestSlot: nearestSlot) * jitter
    }

    /// The proximity the payload carries with `distance`.
    static func proximity(_ distance: Double) -> Proximity { distance < 0.5 ? .immediate : distance < 3 ? .near : .far }

    /// What the aggregator's decider reads from the payload (`ReceivedMeasurement.evidence`).
    func evidence(beacon: Int, slot: Int, nearestSlot: Int, sequence: Int) -> NodeEvidence {
        let distance = distance(beacon: beacon, slot: slot, nearestSlot: nearestSlot, sequence: sequence)
        let node = node(beacon: beacon, slot: slot)
        let rssiFiltered = -59 - 10 * DistanceModel.default.pathLossExponent * log10(distance)
        return NodeEvidence(beacon: beaconID(beacon), node: nodeName(node), room: roomName(roomIndex(ofNode: node)),
                            rssiFiltered: rssiFiltered, sigma: 1.5, distance: distance, proximity: Self.proximity(distance))
    }

    /// `<root>/nodes/<node>/info`, as the agent's.
    func nodeInfo(_ node: Int, startedAt: Instant) -> String {
        var json = JSONObjectWriter()
        json.add("node", nodeName(node))
        json.add("room", roomName(roomIndex(ofNode: node)))
        json.add("version", "bench")
        json.add("source", "fleet")
        json.add("startedAt", ISO8601Timestamp.string(from: startedAt))
        json.add("configRevision", 0)
        return json.json
    }

    private static func padded(_ value: Int) -> String {
        let digits = String(value)
        return digits.count >= 3 ? digits : String(repeating: "0", count: 3 - digits.count) + digits
    }
}
