import BeaconCore
import Logging
import MQTTClient

/// What the motion sensors did, for tests and logs (`AggregatorService.Statistics.motion`).
public struct MotionStatistics: Sendable, Hashable {
    /// Messages of the sensors' topics handled (states and availability).
    public var messages = 0
    /// Payloads that could not be read (logged once per sensor a minute).
    public var unreadable = 0
    /// Changes of a room's motion handed to the decision.
    public var changes = 0
}

/// The service's side of the motion sensors (`motion:`): subscribes to their topics, hands each
/// room's change to the core (and to `run --record`'s motion file), and logs a payload it cannot
/// read once per sensor a minute. Kept out of `AggregatorService`, which only relays.
struct MotionFeed {
    private(set) var statistics = MotionStatistics()
    private var sources: MotionSources
    private var unreadableLogs: [String: RepeatedLogGate] = [:]
    private let logger: Logger
    private let recorder: MotionRecorder?

    init(configuration: AggregatorConfiguration, logger: Logger, recorder: MotionRecorder?) {
        sources = MotionSources(settings: configuration.motion)
        self.logger = logger
        self.recorder = recorder
    }

    /// Subscribes to every sensor's state and availability topic.
    func subscribe(on connection: MQTTConnection) async throws -> [MQTTSubscription] {
        guard !sources.isEmpty else { return [] }
        logger.info("reading motion sensors", metadata: ["rooms": "\(sources.sensorRooms.joined(separator: ","))"])
        var subscriptions: [MQTTSubscription] = []
        for filter in sources.subscriptions { subscriptions.append(try await connection.subscribe(filter)) }
        return subscriptions
    }

    /// One message of their topics.
    mutating func receive(_ message: MQTTMessage, into core: inout AggregatorCore, at now: Instant) {
        statistics.messages += 1
        switch sources.receive(topic: message.topic, payload: message.payload, at: now) {
        case .changed(let room, let occupied):
            apply(room: room, occupied: occupied, into: &core, at: now)
        case .unchanged, .ignored:
            break
        case .unreadable(let sensor):
            statistics.unreadable += 1
            if unreadableLogs[sensor] == nil, unreadableLogs.count < 1_024 { unreadableLogs[sensor] = RepeatedLogGate(interval: 60) }
            if let count = unreadableLogs[sensor]?.note(at: now) {
                logger.warning("motion sensor payload not understood; expected JSON with occupancy or presence, or on/off",
                               metadata: ["topic": "\(sensor)", "payload": "\(String(decoding: message.payload.prefix(80), as: UTF8.self))",
                                          "count": "\(count)"])
            }
        }
    }

    /// Sensors gone silent stop counting.
    mutating func tick(into core: inout AggregatorCore, at now: Instant) {
        for change in sources.tick(at: now) { apply(room: change.room, occupied: change.occupied, into: &core, at: now) }
    }

    private mutating func apply(room: String, occupied: Bool?, into core: inout AggregatorCore, at now: Instant) {
        statistics.changes += 1
        // A sensor that no longer counts is recorded as clear: the motion file knows on and off only.
        recorder?.record(room: room, occupied: occupied ?? false, at: now)
        core.motion(room: room, occupied: occupied, at: now)
    }
}
