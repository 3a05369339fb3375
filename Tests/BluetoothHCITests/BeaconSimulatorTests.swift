import BeaconCore
import IdentityCrypto
import Testing
@testable import BluetoothHCI

@Suite struct BeaconSimulatorTests {
    let scenario = SimulationScenario.demo

    @Test func sameScenarioAndTimeGiveTheSameAdvertisementsInEveryProcess() throws {
        let a = try #require(BeaconSimulator(scenario: scenario, nodeID: "kitchen-1"))
        let b = try #require(BeaconSimulator(scenario: scenario, nodeID: "kitchen-1"))
        let start = Instant(seconds: 1_800_000_000)
        #expect(a.advertisements(from: start, to: start + 10) == b.advertisements(from: start, to: start + 10))
        // Asking in two halves gives the same as asking at once: live sources poll in small steps.
        let whole = a.advertisements(from: start, to: start + 10)
        let halves = a.advertisements(from: start, to: start + 4) + a.advertisements(from: start + 4, to: start + 10)
        #expect(whole == halves)
    }

    @Test func packetsAreLEAdvertisingReportsCarryingTheIBeacon() throws {
        let sim = try #require(BeaconSimulator(scenario: scenario, nodeID: "office-1"))
        let adverts = sim.advertisements(from: Instant(seconds: 0), to: Instant(seconds: 5))
        #expect(!adverts.isEmpty)
        for advert in adverts {
            let p = advert.packet
            #expect(p[0] == 0x04 && p[1] == 0x3E && Int(p[2]) == p.count - 3)
            #expect(p[3] == 0x02 && p[4] == 0x01)  // advertising report, one report
            if advert.person == "Carol" {
                // A phone: Apple's Nearby Info, no beacon, from a resolvable private address.
                #expect(Array(p[17...22]) == [0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05])
                #expect(p[12] >> 6 == 0b01)
            } else {
                #expect(Array(p[17...22]) == [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15])
            }
            #expect(Int8(bitPattern: p[p.count - 1]) == Int8(advert.rssi))
        }
        // Three beacons at 5 per second, less about one in ten lost, and some out of range.
        #expect(adverts.count > 30 && adverts.count <= 75)
    }

    @Test func aPhoneRotatesItsAddressUnderItsKeyAndEveryNodeSeesTheSameOne() throws {
        let kitchen = try #require(BeaconSimulator(scenario: scenario, nodeID: "kitchen-1"))
        let office = try #require(BeaconSimulator(scenario: scenario, nodeID: "office-1"))
        let carol = try #require(scenario.people.firstIndex { $0.name == "Carol" })
        let ah = LibCrypto().addressHash(for: try IdentityResolvingKey(parsing: SimulationScenario.demoPhoneKey))
        var resolver = PrivateAddressResolver(hashes: [ah])
        var seen = Set<BluetoothAddress>()
        for t in stride(from: 0.0, to: 600, by: 30) {
            let address = kitchen.address(person: carol, at: t)
            #expect(address == office.address(person: carol, at: t))
            #expect(IdentityResolvingKey.isResolvablePrivateAddress(address, type: .random))
            #expect(resolver.resolve(address) == 0)
            seen.insert(address)
        }
        // 600 s at one address per 120 s.
        #expect(seen.count == 5)
    }

    @Test func aPersonIsHeardLoudestInTheirOwnRoom() throws {
        let sims = scenario.nodes.map { BeaconSimulator(scenario: scenario, node: $0) }
        var agree = 0, total = 0
        var t = 0.0
        while t < 1_800 {
            let truth = sims[0].truth(at: Instant(seconds: t))
            for person in scenario.people {
                guard let room = truth[person.name] ?? nil else { continue }
                var best: (room: String, mean: Double)? = nil
                for sim in sims {
                    let heard = sim.advertisements(from: Instant(seconds: t), to: Instant(seconds: t + 3))
                        .filter { $0.person == person.name }.map(\.rssi)
                    guard !heard.isEmpty else { continue }
                    let mean = Double(heard.reduce(0, +)) / Double(heard.count)
                    if best == nil || mean > best!.mean { best = (sim.node.room, mean) }
                }
                total += 1
                if best?.room == room { agree += 1 }
            }
            t += 30
        }
        #expect(total > 100)
        #expect(Double(agree) / Double(total) > 0.9)
    }

    @Test func peopleChangeRoomsOverTime() throws {
        let sim = try #require(BeaconSimulator(scenario: scenario, nodeID: "kitchen-1"))
        for person in scenario.people {
            var rooms = Set<String>()
            for step in 0..<120 {
                if let room = sim.truth(at: Instant(seconds: Double(step) * 10))[person.name] ?? nil { rooms.insert(room) }
            }
            #expect(rooms.count >= 3, "\(person.name) stayed in \(rooms)")
        }
    }

    @Test func aBrokenScenarioIsDescribedFieldByField() {
        var bad = scenario
        bad.nodes[1].room = "attic"
        bad.people[0].uuid = "abc"
        bad.advertisingInterval = 0
        #expect(bad.validationErrors() == [
            "nodes[1].room: 'attic' is not one of the rooms",
            "people[0].uuid: 'abc' is not a UUID",
            "advertisingInterval: must be at least 0.02 s",
        ])
        #expect(scenario.validationErrors().isEmpty)
        #expect(BeaconSimulator(scenario: scenario, nodeID: "garage-1") == nil)
    }
}
