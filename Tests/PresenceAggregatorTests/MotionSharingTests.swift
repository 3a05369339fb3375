import BeaconCore
import Foundation
import RoomDecisions
import PresenceAggregator
import TestSupport
import Testing

/// Motion is shared evidence (issue 37): through the aggregator, with physics and with a site
/// model, a second person sitting still in another room is never moved by the first one's motion.
/// Alice walks from the hall to the kitchen, each room's sensor firing as she comes; Bob sits in
/// the office, his sensor quiet for minutes, his radio a little unsure (the kitchen's node 2 m
/// further than the office's). What is published for Bob must be what is published without sensors.
@Suite struct MotionSharingTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice"), name: "Alice")
    static let bob = KnownBeacon(beacon: otherBeaconID, alias: TopicLevelID("bob"), name: "Bob")
    static let rooms = ["hall", "kitchen", "office"]

    /// One node per room; each room looks to its own node 6 dB above the mean of the nodes hearing
    /// the beacon, to the others 3 dB below.
    private func model() -> SiteModel {
        let looks = Self.rooms.map { room in
            Self.rooms.map { node in SiteModel.Look(heard: 0.95, mean: node == room ? 6 : -3, sigma: 3) }
        }
        return SiteModel(rooms: Self.rooms, nodes: Self.rooms.map { "\($0)-1" }, looks: looks, samples: [100, 100, 100],
                         parameters: .default, nodeRooms: Self.rooms)
    }

    /// The rooms published for each person over three minutes; with `sensors`, each room's sensor
    /// reports as Alice moves (Bob's office never sees motion: he sits still).
    private func published(sensors: Bool, model: SiteModel?, hold: Double = 0) -> [String: [String]] {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [Self.alice, Self.bob]
        configuration.homeAssistantDiscovery = false
        configuration.siteModel = model
        configuration.motionDecision.hold = hold
        if sensors { configuration.motion = Self.rooms.map { MotionSensorSettings(topic: "z2m/\($0)-pir", room: $0) } }
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        var out: [String: [String]] = [:]
        func collect(_ publications: [AggregatorPublication]) {
            for person in ["alice", "bob"] {
                for publication in publications where publication.topic == "presence/locations/\(person)/room" {
                    out[person, default: []].append(publication.payload)
                }
            }
        }
        func hear(_ beacon: BeaconID, _ distances: [String: Double], at time: Instant) {
            for room in Self.rooms {
                let distance = distances[room]!
                collect(core.receive(ReceivedMeasurement(
                    beacon: beacon, node: "\(room)-1", room: room, rssiFiltered: -60 - 15 * log10(distance), sigma: 1,
                    distance: distance, proximity: distance < 3 ? .near : .far), at: time))
            }
        }
        // Alice in the hall until t = 60, then in the kitchen; her sensors fire 1 s after she arrives.
        let motion: [(Double, String, Bool)] = [(0, "office", false), (0, "kitchen", false), (1, "hall", true),
                                                (61, "kitchen", true), (66, "hall", false), (150, "kitchen", false)]
        var next = 0
        for step in 0..<720 {
            let t = Double(step) * 0.25
            let time = startTime + t
            while sensors, next < motion.count, motion[next].0 <= t {
                core.motion(room: motion[next].1, occupied: motion[next].2, at: time)
                next += 1
            }
            if step % 4 == 0 { collect(core.tick(at: time)) }
            let inKitchen = t >= 60
            hear(beaconID, ["hall": inKitchen ? 7 : 1.5, "kitchen": inKitchen ? 1.5 : 7, "office": 6], at: time)
            hear(otherBeaconID, ["hall": 7, "kitchen": 4, "office": 2], at: time)
        }
        return out
    }

    @Test(arguments: [false, true])
    func aStillPersonIsNotMovedByAnothersMotion(withModel: Bool) {
        let model = withModel ? model() : nil
        let without = published(sensors: false, model: model)
        #expect(without["bob"] == ["office"])
        #expect(without["alice"] == ["hall", "kitchen"])
        for hold in [0.0, 3.0] {
            let with = published(sensors: true, model: model, hold: hold)
            #expect(with["bob"] == without["bob"], "hold \(hold)")
            #expect(with["alice"] == without["alice"], "hold \(hold)")
        }
    }
}
