import BeaconCore
import BluetoothHCI
import FoundationEssentials

/// The simulator as a source: the embedded demo building or a scenario file, heard from one node.
/// Simulated time is wall time at speed 1 (so every agent of a demo hears the same building),
/// `speed` times faster otherwise, and at speed 0 runs through `simulationDuration` as fast as
/// possible.
final class SimulatorFeed: AdvertisementFeed {
    private let simulator: BeaconSimulator
    private let speed: Double
    private let wallClock: @Sendable () -> Double
    private let start: Double
    private let wallStart: Double
    private let end: Double?
    private var decoder = AdvertisementDecoder()
    private(set) var now: Instant

    init(scenarioPath: String?, options: FeedOptions) throws(FeedError) {
        let scenario = try SimulatorFeed.loadScenario(scenarioPath)
        let nodeID = options.simulatedNode ?? scenario.nodes.first?.id ?? ""
        guard let simulator = BeaconSimulator(scenario: scenario, nodeID: nodeID) else {
            let known = scenario.nodes.map(\.id).joined(separator: ", ")
            throw FeedError("simulate: node '\(nodeID)' is not in the scenario (its nodes: \(known))")
        }
        if options.speed == 0 && options.simulationDuration == nil {
            throw FeedError("simulate: --speed 0 needs a duration, or it would never end")
        }
        self.simulator = simulator
        speed = max(0, options.speed)
        wallClock = options.wallClock
        let startedAt = options.wallClock()
        wallStart = startedAt
        start = startedAt
        end = options.simulationDuration.map { startedAt + $0 }
        now = Instant(seconds: startedAt)
    }

    var malformedEventCount: Int { decoder.malformedEventCount }

    func poll(timeout: Double, _ body: (DecodedAdvertisement) -> Void) throws(FeedError) -> Bool {
        var target: Double
        if speed == 0 {
            target = now.seconds + 1
        } else {
            target = start + (wallClock() - wallStart) * speed
            if target <= now.seconds {
                WallClock.pause(min(0.1, max(0, timeout)))
                target = start + (wallClock() - wallStart) * speed
            }
        }
        if let end { target = min(target, end) }
        if target > now.seconds {
            for advert in simulator.advertisements(from: now, to: Instant(seconds: target)) {
                decoder.decode(eventPacket: advert.packet.dropFirst(), at: advert.time, body)
            }
            now = Instant(seconds: target)
        }
        if let end { return now.seconds < end }
        return true
    }

    func close() {}

    static func loadScenario(_ path: String?) throws(FeedError) -> SimulationScenario {
        guard let path else { return .demo }
        let scenario: SimulationScenario
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            scenario = try JSONDecoder().decode(SimulationScenario.self, from: data)
        } catch let error as DecodingError {
            throw FeedError("simulate:\(path): \(SimulatorFeed.describe(error))")
        } catch {
            throw FeedError("simulate:\(path): cannot read the file (\(error))")
        }
        let problems = scenario.validationErrors()
        guard problems.isEmpty else { throw FeedError("simulate:\(path): " + problems.joined(separator: "; ")) }
        return scenario
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context.codingPath)): wrong type"
        case .dataCorrupted(let context): return "not valid JSON (\(path(context.codingPath)))"
        @unknown default: return "not a scenario"
        }
    }
}
