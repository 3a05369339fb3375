import BeaconCore
import Logging
import MQTTClient

/// What foreign sources did, for tests and logs (`AggregatorService.Statistics.foreign`).
public struct ForeignNodeStatistics: Sendable, Hashable {
    /// Messages of foreign sources handled: used, ignored (not a device followed) or rejected.
    public var messages = 0
    /// Messages refused as malformed or unplaceable (logged once per node a minute).
    public var rejected = 0
    /// Measurements they gave the decision, silences included.
    public var measurements = 0
}

/// The service's side of the foreign sources (`sources:`): subscribes to their topics, turns each
/// message into the core's input as its agents' would be (measurements through `run --record`
/// too), and logs what it refuses once per node a minute — never with the topic, which for
/// ESPresense may carry a phone's key. It also publishes each foreign node's summary for `watch`
/// (`ForeignNodeSummaries`). Kept out of `AggregatorService`, which only relays.
struct ForeignNodeFeed {
    private(set) var statistics = ForeignNodeStatistics()
    private var sources: ForeignSources
    private var summaries: ForeignNodeSummaries
    private var rejectionLogs = RejectionLog()
    private let logger: Logger
    private let recorder: MeasurementRecorder?

    init(configuration: AggregatorConfiguration, known: AggregatorKnownBeacons, logger: Logger, recorder: MeasurementRecorder?) {
        sources = ForeignSources(configuration: configuration)
        summaries = ForeignNodeSummaries(topics: configuration.topics)
        sources.setKnown(known.byBeacon.values)
        self.logger = logger
        self.recorder = recorder
    }

    /// Subscribes to every configured source's topics (QoS 0: they publish so); `handler` gets their
    /// messages on the network thread.
    func subscribe(on connection: MQTTConnection, handler: @escaping @Sendable (MQTTMessage) -> Void) async throws {
        guard !sources.isEmpty else { return }
        logger.info("reading foreign nodes", metadata: ["topics": "\(sources.subscriptions.joined(separator: " "))"])
        for filter in sources.subscriptions { _ = try await connection.subscribe(filter, qos: .atMostOnce, handler: handler) }
    }

    /// One message of their topics.
    mutating func receive(_ message: MQTTMessage, into core: inout AggregatorCore, at now: Instant) -> [AggregatorPublication] {
        statistics.messages += 1
        switch sources.receive(topic: message.topic, payload: message.payload, at: now) {
        case .used(let inputs):
            return feed(inputs, into: &core, at: now)
        case .ignored:
            return []
        case .rejected(let source, let error):
            statistics.rejected += 1
            summaries.noteRejected(node: source)
            if let count = rejectionLogs.note(source: source, at: now) {
                var metadata: Logger.Metadata = ["node": "\(source)", "error": "\(error)", "count": "\(count)"]
                if let device = error.device { metadata["device"] = "\(device)" }
                if let field = error.field { metadata["field"] = "\(field)" }
                logger.warning("foreign node message rejected", metadata: metadata)
            }
            return []
        }
    }

    /// Every foreign node's summary, for an instance that has just taken the lead.
    mutating func allSummaries() -> [AggregatorPublication] { summaries.all() }

    /// The sources' silences due at this tick, and the foreign nodes' summaries that changed.
    mutating func tick(into core: inout AggregatorCore, at now: Instant) -> [AggregatorPublication] {
        feed(sources.tick(at: now), into: &core, at: now) + summaries.due(at: now)
    }

    /// `<root>/config/beacons` was applied (or refused) by the core: the devices followed and the
    /// keys the gateways resolve phones with follow it.
    mutating func knownBeaconsChanged(_ core: AggregatorCore, payload: [UInt8]) {
        sources.setKnown(core.knownBeacons.byBeacon.values)
        sources.setIdentityKeys(pushed: payload)
    }

    private mutating func feed(_ inputs: [ForeignNodeInput], into core: inout AggregatorCore, at now: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        for input in inputs {
            summaries.note(input)
            switch input {
            case .measurement(let measurement):
                recorder?.record(measurement, at: now)
                out += core.receive(measurement, at: now)
                statistics.measurements += 1
            case .nodeStatus(let node, let online):
                out += core.nodeStatus(node: node, online: online, at: now)
            case .nodeInfo(let node, let room, let version, let kind):
                out += core.nodeInfo(node: node, room: room, version: version, kind: kind)
            }
        }
        return out
    }

    /// One log line per node a minute, with the count since the last. At most 1,024 nodes get a
    /// gate of their own (a flood of made-up node names shares one), so the gates stay bounded.
    struct RejectionLog {
        private var gates: [String: RepeatedLogGate] = [:]
        private var shared = RepeatedLogGate(interval: 60)

        mutating func note(source: String, at time: Instant) -> Int? {
            if gates[source] == nil {
                guard gates.count < 1_024 else { return shared.note(at: time) }
                gates[source] = RepeatedLogGate(interval: 60)
            }
            return gates[source]!.note(at: time)
        }
    }
}
