import BeaconCore

/// A building for the `simulate` source: rooms on a floor, receiver nodes, and people carrying
/// iBeacons who walk from room to room. Every agent of a demo loads the same scenario and seed, so
/// they all hear one consistent world, each from its own node's position.
public struct SimulationScenario: Hashable, Sendable, Codable {
    public struct Room: Hashable, Sendable, Codable {
        public var id: String
        /// Lower-left corner and size in metres.
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double

        public var centre: Point { Point(x: x + width / 2, y: y + height / 2) }

        public func contains(_ point: Point) -> Bool {
            point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
        }
    }

    public struct Node: Hashable, Sendable, Codable {
        public var id: String
        public var room: String
        public var x: Double
        public var y: Double
    }

    public struct Person: Hashable, Sendable, Codable {
        public var name: String
        /// The iBeacon the person carries (unused when `irk` is set).
        public var uuid: String
        public var major: UInt16
        public var minor: UInt16
        /// Advertised RSSI at 1 m.
        public var measuredPower: Int
        /// The beacon's (random static) address.
        public var address: String
        /// Set when the person carries a phone instead: its Identity Resolving Key (32 hex digits).
        /// The phone advertises no beacon, from a resolvable private address made with this key
        /// that changes every `addressRotation` seconds, as iPhones and Android phones do.
        public var irk: String? = nil
    }

    public struct Point: Hashable, Sendable, Codable {
        public var x: Double
        public var y: Double

        public func distance(to other: Point) -> Double {
            ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
        }
    }

    public var rooms: [Room]
    public var nodes: [Node]
    public var people: [Person]
    public var seed: UInt64
    /// Radio model: log-distance path loss with Gaussian shadowing, and a loss per wall crossed.
    public var pathLossExponent: Double
    public var noiseSigma: Double
    public var wallLoss: Double
    /// Seconds between one beacon's advertisements.
    public var advertisingInterval: Double
    /// Below this RSSI a receiver hears nothing.
    public var sensitivity: Double
    /// How long people stay in a room before walking on, in seconds.
    public var dwellMin: Double
    public var dwellMax: Double
    /// Walking speed in m/s.
    public var walkingSpeed: Double
    /// How long a phone keeps one resolvable private address, seconds (default 120; real phones
    /// rotate about every 15 minutes, shortened here so a demo shows rotations).
    public var addressRotation: Double? = nil

    /// The key of the demo's phone (Carol's): `.ci/demo` pushes it in `config/beacons`.
    public static let demoPhoneKey = "4a1d7c0e9b3f52a86e17d04c3b9f2a65"

    /// Four rooms in a 2 × 2 flat, one node in each, three people (two with iBeacons, one with a
    /// phone): the demo's building.
    public static let demo = SimulationScenario(
        rooms: [
            Room(id: "kitchen", x: 0, y: 0, width: 5, height: 4),
            Room(id: "living", x: 5, y: 0, width: 6, height: 4),
            Room(id: "office", x: 0, y: 4, width: 5, height: 4),
            Room(id: "bedroom", x: 5, y: 4, width: 6, height: 4),
        ],
        nodes: [
            Node(id: "kitchen-1", room: "kitchen", x: 2.5, y: 2.0),
            Node(id: "living-1", room: "living", x: 8.0, y: 2.0),
            Node(id: "office-1", room: "office", x: 2.5, y: 6.0),
            Node(id: "bedroom-1", room: "bedroom", x: 8.0, y: 6.0),
        ],
        people: [
            Person(name: "Alice", uuid: "fda50693-a4e2-4fb1-afcf-c6eb07647825", major: 1, minor: 1,
                   measuredPower: -59, address: "c4:a1:b2:c3:d4:01"),
            Person(name: "Bob", uuid: "fda50693-a4e2-4fb1-afcf-c6eb07647825", major: 1, minor: 2,
                   measuredPower: -59, address: "c4:a1:b2:c3:d4:02"),
            // Carol carries a phone, not a beacon: known only by its key (a demo key, public here;
            // canonical id irk-2178bafcf505), from an address that changes every two minutes.
            Person(name: "Carol", uuid: "fda50693-a4e2-4fb1-afcf-c6eb07647825", major: 1, minor: 3,
                   measuredPower: -61, address: "c4:a1:b2:c3:d4:03", irk: demoPhoneKey),
        ],
        seed: 2026,
        pathLossExponent: 2.7,
        noiseSigma: 3.0,
        wallLoss: 6.0,
        advertisingInterval: 0.2,
        sensitivity: -98,
        dwellMin: 20,
        dwellMax: 60,
        walkingSpeed: 1.2
    )

    /// Problems that make the scenario unusable, each naming the field; empty when it is fine.
    public func validationErrors() -> [String] {
        var errors: [String] = []
        if rooms.isEmpty { errors.append("rooms: at least one room is needed") }
        for (index, room) in rooms.enumerated() where !(room.width > 0 && room.height > 0) {
            errors.append("rooms[\(index)]: width and height must be positive")
        }
        let roomIDs = Set(rooms.map(\.id))
        for (index, node) in nodes.enumerated() where !roomIDs.contains(node.room) {
            errors.append("nodes[\(index)].room: '\(node.room)' is not one of the rooms")
        }
        for (index, person) in people.enumerated() {
            if BeaconUUID(person.uuid) == nil { errors.append("people[\(index)].uuid: '\(person.uuid)' is not a UUID") }
            if BluetoothAddress(person.address) == nil {
                errors.append("people[\(index)].address: '\(person.address)' is not a Bluetooth address")
            }
            if let irk = person.irk {
                do {
                    _ = try IdentityResolvingKey(parsing: irk)
                } catch {
                    errors.append("people[\(index)].irk: \(error)")
                }
            }
            if !(-127...20).contains(person.measuredPower) {
                errors.append("people[\(index)].measuredPower: \(person.measuredPower) is not in -127…20")
            }
        }
        if let rotation = addressRotation, !(rotation >= 1) { errors.append("addressRotation: must be at least 1 s") }
        if !(advertisingInterval >= 0.02) { errors.append("advertisingInterval: must be at least 0.02 s") }
        if !(walkingSpeed > 0) { errors.append("walkingSpeed: must be positive") }
        if !(dwellMin >= 0 && dwellMax >= dwellMin) { errors.append("dwellMin/dwellMax: need 0 ≤ dwellMin ≤ dwellMax") }
        if !(pathLossExponent > 0) { errors.append("pathLossExponent: must be positive") }
        if !(noiseSigma >= 0) { errors.append("noiseSigma: must not be negative") }
        return errors
    }

    public func room(at point: Point) -> Room? {
        rooms.first { $0.contains(point) }
    }
}
