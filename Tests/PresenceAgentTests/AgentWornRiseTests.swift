import BeaconCore
import BluetoothHCI
import Testing
import TestSupport
@testable import PresenceAgent

/// A known beacon marked `worn` (issue 40, sixth round): the agent publishes its rise at once, with
/// `rise` and `riseRssi`; the same beacon not marked publishes neither. The beacon's real advert
/// (decoded from the horizon capture's HCI bytes) heard twice a second, as a wristband's: 10 s at
/// about −78 dBm, then about −66 (the wearer walked up to this node).
@Suite struct AgentWornRiseTests {
    let settings = AgentCore.Settings(node: TopicLevelID("test")!, room: TopicLevelID("lab")!)

    func measurements(worn: Bool) throws -> [String] {
        let band = try AgentCoreTests.band(worn: worn, settings: settings)
        var core = band.core
        let template = band.template
        let start = template.time
        let wobble: [Int8] = [0, 2, -1, 1, -2, 0, 1, -1]
        var out: [String] = []
        for i in 0..<40 {
            var advert = template
            advert.time = start + Double(i) * 0.5
            advert.report.rssi = (i < 20 ? -78 : -66) + wobble[i % wobble.count]
            if i % 2 == 0 {
                for case .publish(let p) in core.tick(at: advert.time) where p.topic == "presence/beacons/band/test" { out.append(p.text) }
            }
            for case .publish(let p) in core.observe(advert) where p.topic == "presence/beacons/band/test" { out.append(p.text) }
        }
        return out
    }

    @Test("marked worn, the step up publishes a rise with the level it rose to; not marked, no measurement carries one")
    func wornBeaconReportsItsRise() throws {
        let worn = try measurements(worn: true)
        let plain = try measurements(worn: false)
        #expect(!plain.isEmpty)
        #expect(plain.allSatisfy { !$0.contains("\"rise\"") && !$0.contains("riseRssi") })
        let rises = worn.filter { $0.contains(#""rise":"#) }
        #expect(!rises.isEmpty)
        #expect(rises.allSatisfy { $0.contains(#""riseRssi":"#) })
        // The rise goes out with the usual measurements (here on the step it also makes), never fewer.
        #expect(worn.count >= plain.count)
    }
}
