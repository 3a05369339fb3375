import BeaconCore
import BluetoothHCI
import FoundationEssentials
import Timekeeping

/// The simulator as a source: the embedded demo building or a scenario file, heard from one node.
/// Simulated time is the injected clock's time at speed 1 (the wall clock live, so every agent of a
/// demo hears the same building), `speed` times faster otherwise, and at speed 0 runs through
/// `simulationDuration` as fast as possible. On a test's manual clock it runs as fast as the test
/// moves the clock.
///
/// At a paced speed a poll sleeps on the clock until the next simulated advertisement is due (or its timeout,
/// at most `AdvertisementFeeds.sourceSecondsPerPoll` of simulated time), as a radio's read blocks
/// until the controller sends a report: it does not spin. The simulator is a pure function of
/// time, so the advertisements of the next stretch are asked for once and handed out as they fall due.
final class SimulatorFeed: AdvertisementFeed {
    private let simulator: BeaconSimulator
    private let speed: Double
    private let clock: any ServiceClock
    private let start: Double
    private let wallStart: Double
    private let end: Double?
    private var decoder = AdvertisementDecoder()
    private(set) var now: Instant
    /// Advertisements of `[now, upcomingUntil)` not yet delivered, in time order.
    private var upcoming: [BeaconSimulator.Advertisement] = []
    private var upcomingUntil: Double
    /// Simulated seconds asked of the simulator at a time.
    private static let lookahead = 1.0

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
        clock = options.clock
        let startedAt = options.clock.now().seconds
        wallStart = startedAt
        start = startedAt
        end = options.simulationDuration.map { startedAt + $0 }
        now = Instant(seconds: startedAt)
        upcomingUntil = startedAt
    }

    var malformedEventCount: Int { decoder.malformedEventCount }

    func poll(timeout: Double, _ body: (DecodedAdvertisement) -> Void) throws(FeedError) -> Bool {
        var target: Double
        if speed == 0 {
            target = now.seconds + 1
        } else {
            let timeout = min(max(0, timeout), AdvertisementFeeds.sourceSecondsPerPoll / speed)
            let limit = simulated(atWall: clock.now().seconds + timeout)
            let next = nextAdvertisementTime(before: limit)
            let wait = wallStart + (next - start) / speed - clock.now().seconds
            clock.sleep(for: min(wait, timeout))
            // `next` itself is due (`nextUp`: delivery is of times before the target), even when
            // the sleep ended a rounding error early.
            target = max(simulated(atWall: clock.now().seconds), next.nextUp)
        }
        if let end { target = min(target, end) }
        if target > now.seconds {
            fill(through: target)
            let due = upcoming.prefix { $0.time.seconds < target }
            for advert in due {
                decoder.decode(eventPacket: advert.packet.dropFirst(), at: advert.time, body)
            }
            upcoming.removeFirst(due.count)
            now = Instant(seconds: target)
        }
        if let end { return now.seconds < end }
        return true
    }

    /// Simulated time at wall time `wall`.
    private func simulated(atWall wall: Double) -> Double {
        start + (wall - wallStart) * speed
    }

    /// The time of the next advertisement not yet delivered, or `limit` when there is none before it.
    private func nextAdvertisementTime(before limit: Double) -> Double {
        fill(through: min(limit, end ?? .infinity))
        return upcoming.first.map { min($0.time.seconds, limit) } ?? limit
    }

    /// Asks the simulator for the advertisements up to `time`, a `lookahead` at a time.
    private func fill(through time: Double) {
        while upcomingUntil < time {
            let until = max(time, upcomingUntil + Self.lookahead)
            upcoming += simulator.advertisements(from: Instant(seconds: upcomingUntil), to: Instant(seconds: until))
            upcomingUntil = until
        }
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
