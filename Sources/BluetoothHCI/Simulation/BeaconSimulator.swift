import BeaconCore
import IdentityCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Synthetic beacons as one node hears them, encoded as real HCI LE Advertising Report events so
/// the agent's whole decoding path runs (the `simulate` source, for demos and tests).
///
/// Everything is a pure function of the scenario, the node and the time: where each person is,
/// when each beacon advertises, and the noise on each reception all come from hashes of
/// (seed, person, slot or advertisement index). So every agent of a demo, started at any moment,
/// sees the same people in the same rooms, and a test can ask for any time span.
public struct BeaconSimulator: Sendable {
    public struct Advertisement: Hashable, Sendable {
        public let time: Instant
        /// An H4 event packet (0x04, LE Meta, Advertising Report with one report).
        public let packet: [UInt8]
        /// Who sent it and what was heard, for tests and the demo's truth display.
        public let person: String
        public let rssi: Int
    }

    public let scenario: SimulationScenario
    public let node: SimulationScenario.Node
    private let advertisingData: [[UInt8]]
    private let addresses: [[UInt8]]
    /// Per person, `ah` of their phone's key; nil for a person carrying an iBeacon.
    private let phoneHashes: [AddressHash?]

    /// Nil when `nodeID` is not in the scenario.
    public init?(scenario: SimulationScenario, nodeID: String) {
        guard let node = scenario.nodes.first(where: { $0.id == nodeID }) else { return nil }
        self.init(scenario: scenario, node: node)
    }

    /// A receiver at any position, e.g. a node that the scenario does not list.
    public init(scenario: SimulationScenario, node: SimulationScenario.Node) {
        self.scenario = scenario
        self.node = node
        advertisingData = scenario.people.map { $0.irk == nil ? BeaconSimulator.iBeaconAdvertisingData($0) : BeaconSimulator.phoneAdvertisingData }
        let crypto = LibCrypto()
        phoneHashes = scenario.people.map { person in
            (person.irk).flatMap { try? IdentityResolvingKey(parsing: $0) }.map(crypto.addressHash(for:))
        }
        addresses = scenario.people.map { person in
            // Wire order is least significant byte first.
            (BluetoothAddress(person.address) ?? BluetoothAddress(rawValue: 0)).bytes.reversed()
        }
    }

    /// Length of one walk-and-stay slot: a person moves at most once per slot.
    var slotLength: Double { max(scenario.dwellMax, 1) }

    /// The room each person is meant to be in at `time` (nil while walking between rooms).
    public func truth(at time: Instant) -> [String: String?] {
        var result: [String: String?] = [:]
        for index in scenario.people.indices {
            let state = placement(person: index, at: time.seconds)
            result[scenario.people[index].name] = state.walking ? nil : scenario.rooms[state.room].id
        }
        return result
    }

    /// Where person `index` is at `time`.
    public func position(person index: Int, at time: Instant) -> SimulationScenario.Point {
        placement(person: index, at: time.seconds).point
    }

    /// The advertisements this node hears in `[start, end)`, in time order.
    public func advertisements(from start: Instant, to end: Instant) -> [Advertisement] {
        guard end > start else { return [] }
        var heard: [Advertisement] = []
        let interval = scenario.advertisingInterval
        for index in scenario.people.indices {
            let phase = unit(hash(index, 0xADBE, 0)) * interval
            var k = Int64(((start.seconds - phase) / interval).rounded(.up))
            while true {
                let t = phase + Double(k) * interval
                if t >= end.seconds { break }
                if t >= start.seconds, let rssi = reception(person: index, advert: k, at: t) {
                    heard.append(Advertisement(
                        time: Instant(seconds: t),
                        packet: packet(person: index, rssi: rssi, at: t),
                        person: scenario.people[index].name,
                        rssi: rssi
                    ))
                }
                k += 1
            }
        }
        heard.sort { $0.time < $1.time }
        return heard
    }

    /// The RSSI this node measures for one advertisement, or nil when it is lost.
    func reception(person index: Int, advert k: Int64, at t: Double) -> Int? {
        // About one advertisement in ten is lost on a real channel (collisions, channel hopping).
        if unit(hash(index, UInt64(bitPattern: k), 0x1055 ^ nodeSalt)) < 0.1 { return nil }
        let here = placement(person: index, at: t)
        let nodePoint = SimulationScenario.Point(x: node.x, y: node.y)
        let distance = max(here.point.distance(to: nodePoint), 0.1)
        var rssi = Double(scenario.people[index].measuredPower) - 10 * scenario.pathLossExponent * log10(distance)
        if scenario.rooms[here.room].id != node.room { rssi -= scenario.wallLoss }
        rssi += scenario.noiseSigma * gaussian(hash(index, UInt64(bitPattern: k), 0x6A55 ^ nodeSalt))
        guard rssi >= scenario.sensitivity else { return nil }
        return Int(rssi.rounded()).clamped(to: -127...20)
    }

    private struct Placement {
        let point: SimulationScenario.Point
        /// The room the point is in (or the room walked towards).
        let room: Int
        let walking: Bool
    }

    /// Slot k: the person leaves room(k−1) at a hashed moment in the slot, walks straight to a
    /// hashed spot in room(k), and stays there until the next slot's move.
    private func placement(person index: Int, at t: Double) -> Placement {
        let slot = Int64((t / slotLength).rounded(.down))
        let from = spot(person: index, slot: slot - 1)
        let to = spot(person: index, slot: slot)
        let walk = from.point.distance(to: to.point) / scenario.walkingSpeed
        let latestStart = max(0, slotLength - walk)
        let minimumStay = min(scenario.dwellMin, latestStart)
        let start = Double(slot) * slotLength + minimumStay
            + unit(hash(index, UInt64(bitPattern: slot), 0x5747)) * (latestStart - minimumStay)
        if t < start { return Placement(point: from.point, room: from.room, walking: false) }
        if t >= start + walk { return Placement(point: to.point, room: to.room, walking: false) }
        let f = (t - start) / max(walk, 1e-9)
        let point = SimulationScenario.Point(x: from.point.x + f * (to.point.x - from.point.x),
                                             y: from.point.y + f * (to.point.y - from.point.y))
        let room = scenario.rooms.firstIndex { $0.contains(point) } ?? to.room
        return Placement(point: point, room: room, walking: true)
    }

    private func spot(person index: Int, slot: Int64) -> (point: SimulationScenario.Point, room: Int) {
        let rooms = scenario.rooms
        let room = Int(hash(index, UInt64(bitPattern: slot), 0x2003) % UInt64(rooms.count))
        let r = rooms[room]
        // Somewhere in the room, away from the walls.
        let marginX = min(0.5, r.width / 4), marginY = min(0.5, r.height / 4)
        let x = r.x + marginX + unit(hash(index, UInt64(bitPattern: slot), 0x0A11)) * (r.width - 2 * marginX)
        let y = r.y + marginY + unit(hash(index, UInt64(bitPattern: slot), 0x0A12)) * (r.height - 2 * marginY)
        return (SimulationScenario.Point(x: x, y: y), room)
    }

    /// The address person `index` advertises from at `t`: their beacon's, or their phone's
    /// resolvable private address of the current rotation period (the same in every node).
    public func address(person index: Int, at t: Double) -> BluetoothAddress {
        guard let ah = phoneHashes[index] else { return BluetoothAddress(littleEndian: addresses[index])! }
        let period = Int64((t / max(scenario.addressRotation ?? 120, 1)).rounded(.down))
        let prand = UInt32(truncatingIfNeeded: hash(index, UInt64(bitPattern: period), 0x1A1D))
        return IdentityResolvingKey.resolvablePrivateAddress(prand: prand, ah: ah)
    }

    private func packet(person index: Int, rssi: Int, at t: Double) -> [UInt8] {
        let data = advertisingData[index]
        // LE Meta (0x3E): subevent 0x02, one report, ADV_NONCONN_IND, random address, data, RSSI.
        var report: [UInt8] = [0x02, 0x01, 0x03, 0x01]
        report += phoneHashes[index] == nil ? addresses[index] : address(person: index, at: t).bytes.reversed()
        report.append(UInt8(data.count))
        report += data
        report.append(UInt8(bitPattern: Int8(rssi)))
        return [0x04, 0x3E, UInt8(report.count)] + report
    }

    /// Flags, then Apple's iBeacon manufacturer data: 4C 00 02 15, UUID, major, minor, power.
    static func iBeaconAdvertisingData(_ person: SimulationScenario.Person) -> [UInt8] {
        IBeacon(uuid: BeaconUUID(person.uuid) ?? BeaconUUID(high: 0, low: 0), major: person.major, minor: person.minor,
                measuredPower: Int8(person.measuredPower.clamped(to: -127...127))).advertisingData
    }

    /// What a phone advertises: flags and Apple's Nearby Info (manufacturer 0x004C, type 0x10) —
    /// no beacon format; only its address, resolved with its key, says whose it is.
    static let phoneAdvertisingData: [UInt8] = [0x02, 0x01, 0x1A, 0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05, 0x01, 0x18, 0x44, 0x7A, 0x21]

    // MARK: - Deterministic randomness

    private var nodeSalt: UInt64 { BeaconSimulator.fnv1a(node.id) }

    private func hash(_ person: Int, _ a: UInt64, _ b: UInt64) -> UInt64 {
        var x = scenario.seed ^ BeaconSimulator.fnv1a(scenario.people[person].name)
        x = BeaconSimulator.splitMix(x ^ a &* 0x9E37_79B9_7F4A_7C15)
        return BeaconSimulator.splitMix(x ^ b)
    }

    /// Uniform in [0, 1).
    private func unit(_ h: UInt64) -> Double { Double(h >> 11) / Double(1 << 53) }

    /// Standard normal from one hash (Box–Muller on its two halves).
    private func gaussian(_ h: UInt64) -> Double {
        let u1 = max(Double(h >> 32) / 4_294_967_296.0, 1e-12)
        let u2 = Double(h & 0xFFFF_FFFF) / 4_294_967_296.0
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    static func splitMix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash that is the same in every process (Swift's `hashValue` is seeded per process).
    static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return h
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
