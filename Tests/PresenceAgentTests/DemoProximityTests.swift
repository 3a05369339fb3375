import BeaconCore
import BluetoothHCI
import Foundation
import Testing
import TestSupport
@testable import PresenceAgent

/// Issue 54: in the demo's site every published measurement's proximity class is the class of the
/// distance it is published with, under the contract's rule (docs/Semantics.md: `immediate` below
/// 0.5 m, `near` below 3 m, `far` beyond; crossing outward needs T·1.3, inward T·0.7) taken from
/// the class that node last published for that beacon. The demo building's four nodes run as
/// `.ci/demo` runs them (the simulate source, n = 2.7, the three people as known beacons, Carol by
/// her phone's key), each through 15 minutes of simulated time on an injected clock, ticked once
/// a second as the service ticks them.
@Suite struct DemoProximityTests {
    static let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
    static let beacons = #"{"revision":1,"beacons":[{"beacon":"ibeacon-\#(uuid)-1-1","id":"alice","name":"Alice"},"#
        + #"{"beacon":"ibeacon-\#(uuid)-1-2","id":"bob","name":"Bob"},"#
        + #"{"irk":"\#(SimulationScenario.demoPhoneKey)","id":"carol","name":"Carol"}]}"#

    struct Published {
        var beacon: String
        var time: Double
        var distance: Double?
        var proximity: Proximity
    }

    /// Every measurement `node` publishes in `seconds` of the demo building.
    static func measurements(node: String, room: String, seconds: Double) throws -> [Published] {
        let clock = ManualClock(now: Instant(seconds: 1_800_000_000))
        var options = FeedOptions()
        options.speed = 0
        options.simulationDuration = seconds
        options.simulatedNode = node
        options.clock = clock
        let feed = try AdvertisementFeeds.open(.simulate(scenarioPath: nil), options: options)
        var tracking = TrackingParameters.default
        tracking.distance.pathLossExponent = 2.7
        let start = feed.now
        var core = AgentCore(
            settings: AgentCore.Settings(node: TopicLevelID(node)!, room: TopicLevelID(room)!, tracking: tracking), at: start)
        _ = core.receiveConfiguration(topic: "presence/config/beacons", payload: Array(beacons.utf8), at: start)
        var published: [Published] = []
        func collect(_ actions: [AgentAction], at time: Instant) {
            for case .publish(let publication) in actions {
                let levels = publication.topic.split(separator: "/")
                guard levels.count == 4, levels[1] == "beacons", levels[3] == Substring(node),
                      let json = try? JSONSerialization.jsonObject(with: Data(publication.payload)) as? [String: Any],
                      let proximity = (json["proximity"] as? String).flatMap(Proximity.init(rawValue:)) else { continue }
                published.append(Published(beacon: String(levels[2]), time: time.seconds - start.seconds,
                                           distance: json["distance"] as? Double, proximity: proximity))
            }
        }
        var nextTick = start + 1
        while try feed.poll(timeout: 1, { advertisement in
            while nextTick <= advertisement.time {
                collect(core.tick(at: nextTick), at: nextTick)
                nextTick = nextTick + 1
            }
            collect(core.observe(advertisement), at: advertisement.time)
        }) {}
        return published
    }

    @Test func everyPublishedClassIsTheClassOfItsDistance() throws {
        let rule = TrackingParameters.default.proximity
        #expect(rule == .init(immediateBelow: 0.5, nearBelow: 3, hysteresis: 0.3, unknownAfter: 5), "the contract's rule")
        var checked = 0
        var classes: Set<Proximity> = []
        for (node, room) in [("kitchen-1", "kitchen"), ("living-1", "living"), ("office-1", "office"), ("bedroom-1", "bedroom")] {
            let published = try Self.measurements(node: node, room: room, seconds: 900)
            #expect(Set(published.map(\.beacon)) == ["alice", "bob", "carol"], "\(node) measured \(Set(published.map(\.beacon)))")
            var previous: [String: Proximity] = [:]
            for measurement in published {
                defer { previous[measurement.beacon] = measurement.proximity }
                guard measurement.proximity != .unknown else {
                    #expect(measurement.distance == nil, "\(node) \(measurement.beacon) at \(measurement.time) s: unknown with a distance")
                    continue
                }
                guard let distance = measurement.distance else {
                    Issue.record("\(node) \(measurement.beacon) at \(measurement.time) s: \(measurement.proximity) without a distance")
                    continue
                }
                let from = previous[measurement.beacon] ?? .unknown
                // The payload rounds the distance to centimetres: a class is right when the rule
                // gives it for a distance that rounds to the one published.
                let agrees = [distance - 0.005, distance, distance + 0.005].contains {
                    ProximityClassifier.next(from: from, distance: $0, parameters: rule) == measurement.proximity
                }
                #expect(agrees,
                        "\(node) \(measurement.beacon) at \(measurement.time) s: \(measurement.proximity) at \(distance) m after \(from)")
                checked += 1
                classes.insert(measurement.proximity)
            }
        }
        // The walk takes every class somewhere: the check saw class changes, not one class throughout.
        #expect(classes == [.immediate, .near, .far], "\(classes)")
        #expect(checked > 1000, "\(checked) measurements")
    }
}
