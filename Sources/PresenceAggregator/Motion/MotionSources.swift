import BeaconCore

/// Every motion sensor of the configuration (`motion:`), as one input of the service: the topics
/// to subscribe to, each message read into its room's motion, and the sensors' silences at each
/// tick. Pure: the service hands each room's change to `AggregatorCore.motion(room:occupied:at:)`.
///
/// A room's motion is that of its sensors that count: occupied when any of them reports motion,
/// clear when all that count report none, and nil — no sensor, no evidence either way — when none
/// counts: a sensor stops counting when it says it is unavailable, and when it has said nothing for
/// its `staleAfter`. A payload that cannot be read changes nothing (counted, for the log).
public struct MotionSources: Sendable, Hashable {
    /// What a message did.
    public enum Outcome: Sendable, Hashable {
        /// The room's motion changed: occupied, clear, or nil (no sensor of it counts any more).
        case changed(room: String, occupied: Bool?)
        /// Read, but the room's motion is as it was.
        case unchanged
        /// Not a sensor's topic.
        case ignored
        /// The payload could not be read; the sensor (its topic) is named for the log.
        case unreadable(sensor: String)
    }

    struct Sensor: Sendable, Hashable {
        var settings: MotionSensorSettings
        /// Its last state; nil before its first, after `unavailable` and once stale.
        var occupied: Bool?
        var available = true
        var lastMessage: Instant?
    }

    private var sensors: [Sensor]
    private var byTopic: [String: Int] = [:]
    private var byAvailability: [String: Int] = [:]
    /// Each room's motion as last reported (`Outcome.changed`).
    public private(set) var rooms: [String: Bool?] = [:]
    /// Payloads that could not be read.
    public private(set) var unreadable = 0

    public init(settings: [MotionSensorSettings]) {
        sensors = settings.map { Sensor(settings: $0) }
        for (index, sensor) in settings.enumerated() {
            byTopic[sensor.topic] = index
            byAvailability[sensor.availabilityTopic] = index
        }
    }

    public var isEmpty: Bool { sensors.isEmpty }

    /// The topics to subscribe to: each sensor's state and its availability.
    public var subscriptions: [String] {
        sensors.flatMap { [$0.settings.topic, $0.settings.availabilityTopic] }
    }

    /// The rooms with a sensor, in name order.
    public var sensorRooms: [String] { Set(sensors.map(\.settings.room)).sorted() }

    /// One message of the subscriptions.
    public mutating func receive(topic: String, payload: [UInt8], at time: Instant) -> Outcome {
        if let index = byTopic[topic] {
            guard let read = MotionPayload.state(payload, words: sensors[index].settings.payload) else {
                unreadable += 1
                return .unreadable(sensor: topic)
            }
            sensors[index].lastMessage = time
            switch read {
            case .motion(let flag): sensors[index].occupied = flag
            case .unavailable: sensors[index].occupied = nil
            case .available, .nothing: break
            }
            return roomChanged(sensors[index].settings.room)
        }
        if let index = byAvailability[topic] {
            guard let read = MotionPayload.availability(payload) else {
                unreadable += 1
                return .unreadable(sensor: topic)
            }
            switch read {
            case .unavailable:
                sensors[index].available = false
                sensors[index].occupied = nil
            case .available:
                sensors[index].available = true
            default: break
            }
            return roomChanged(sensors[index].settings.room)
        }
        return .ignored
    }

    /// Sensors silent for their `staleAfter` stop counting; the rooms this changes.
    public mutating func tick(at time: Instant) -> [(room: String, occupied: Bool?)] {
        var touched: Set<String> = []
        for index in sensors.indices {
            guard sensors[index].occupied != nil, let last = sensors[index].lastMessage,
                time.since(last) > sensors[index].settings.staleAfter
            else { continue }
            sensors[index].occupied = nil
            touched.insert(sensors[index].settings.room)
        }
        return touched.sorted().compactMap { room in
            if case .changed(let room, let occupied) = roomChanged(room) { return (room, occupied) }
            return nil
        }
    }

    /// The room's motion from its sensors that count.
    public func motion(of room: String) -> Bool? {
        var result: Bool?
        for sensor in sensors where sensor.settings.room == room && sensor.available {
            guard let occupied = sensor.occupied else { continue }
            result = (result ?? false) || occupied
        }
        return result
    }

    private mutating func roomChanged(_ room: String) -> Outcome {
        let now = motion(of: room)
        if let before = rooms[room], before == now { return .unchanged }
        if rooms[room] == nil, now == nil { return .unchanged }
        rooms[room] = now
        return .changed(room: room, occupied: now)
    }
}
