import BeaconCore
import Testing
import TestSupport
@testable import PresenceAgent

/// The track table's own index (open addressing over slots): it must find exactly what a
/// `Dictionary` would, through inserts, evictions and slot reuse.
@Suite struct TrackTableTests {
    static let uuid = BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825")!

    static func beacon(_ key: BeaconID.Components) -> AgentCore.TrackedBeacon {
        AgentCore.TrackedBeacon(
            track: BeaconTrack.State(BeaconTrack.Tuning(.default)), format: .none, rangingSlot: RegionMonitor.noRangingSlot,
            lastHeard: Instant(seconds: 0), address: BluetoothAddress(rawValue: 1), id: BeaconID(key), regionMatches: .empty,
            matchedRevision: 0)
    }

    @Test func everyKindOfIdPacksIntoThreeWordsAndBack() {
        let keys: [BeaconID.Components] = [
            .iBeacon(uuid: Self.uuid, major: 65535, minor: 0),
            .iBeacon(uuid: Self.uuid, major: 0, minor: 65535),
            .altBeacon(AltBeacon.Identifier(leading: Self.uuid, trailing: 0xFFFF_FFFF)),
            .eddystone(namespace: EddystoneUID.Namespace(high: .max, low: .max), instance: 0xFFFF_FFFF_FFFF),
            .eddystone(namespace: EddystoneUID.Namespace(high: 1, low: 2), instance: 3),
            .mac(BluetoothAddress(rawValue: 0xFFFF_FFFF_FFFF)),
            .mac(BluetoothAddress(rawValue: 0)),
        ]
        for key in keys { #expect(FixedKey(key).components == key) }
        // Different ids, different keys: the same numbers in two kinds are not the same beacon.
        #expect(Set(keys.map(FixedKey.init)).count == keys.count)
        #expect(FixedKey(.iBeacon(uuid: BeaconUUID(high: 0, low: 0), major: 0, minor: 5)) != FixedKey(.mac(BluetoothAddress(rawValue: 5))))
    }

    @Test func aRemovedBeaconsSlotIsReusedAndTheOldKeyIsGone() {
        var table = TrackTable()
        let a = BeaconID.Components.iBeacon(uuid: Self.uuid, major: 1, minor: 1)
        let b = BeaconID.Components.iBeacon(uuid: Self.uuid, major: 1, minor: 2)
        let slotA = table.insert(a, Self.beacon(a), group: .region)
        table.remove(slotA)
        #expect(table.slot(of: a) == nil)
        #expect(table.count == 0)
        let slotB = table.insert(b, Self.beacon(b), group: .other)
        #expect(slotB == slotA)
        #expect(table.slot(of: b) == slotB)
        #expect(table.slot(of: a) == nil)
        #expect(table.key(at: slotB) == b)
        #expect(table[slotB].id == BeaconID(b))
        #expect(table.oldest(.other) == slotB && table.oldest(.region) == nil)
    }

    /// 200,000 random inserts and removals over 5,000 ids of every kind, checked against a
    /// `Dictionary` after each step: the index grows, shifts entries back on removal and reuses slots.
    @Test func findsWhatADictionaryFindsThroughRandomInsertsAndRemovals() {
        var generator = SeededRandom(seed: 42)
        let ids: [BeaconID.Components] = (0..<5_000).map { n in
            switch n % 4 {
            case 0: .iBeacon(uuid: Self.uuid, major: UInt16(n % 7), minor: UInt16(n))
            case 1: .altBeacon(AltBeacon.Identifier(leading: Self.uuid, trailing: UInt32(n)))
            case 2: .eddystone(namespace: EddystoneUID.Namespace(high: 9, low: UInt16(n % 3)), instance: UInt64(n))
            default: .mac(BluetoothAddress(rawValue: UInt64(n)))
            }
        }
        var table = TrackTable()
        var model: [BeaconID.Components: Int] = [:]
        for step in 0..<200_000 {
            let key = ids[Int(generator.next() % UInt64(ids.count))]
            if let slot = model[key] {
                #expect(table.slot(of: key) == slot)
                table.remove(slot)
                model[key] = nil
            } else {
                #expect(table.slot(of: key) == nil)
                model[key] = table.insert(key, Self.beacon(key), group: .other)
            }
            if step % 20_000 == 0 {
                for (key, slot) in model { #expect(table.slot(of: key) == slot) }
            }
        }
        #expect(table.count == model.count)
        for key in ids { #expect(table.slot(of: key) == model[key]) }
        for (key, slot) in model { #expect(table.key(at: slot) == key) }
    }
}
