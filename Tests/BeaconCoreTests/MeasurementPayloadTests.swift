import Testing
@testable import BeaconCore

@Suite struct MeasurementPayloadTests {
    @Test func writesMQTTExampleInContractOrder() {
        let payload = MeasurementPayload(
            id: "alice-keys", beacon: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6", name: "Alice's keys",
            node: "kitchen-1", room: "kitchen", rssi: -71, rssiFiltered: -69.42, sigma: 1.78, measuredPower: -59,
            distance: 2.3149, proximity: .near, address: BluetoothAddress("c4:a1:b2:c3:d4:e5"), format: "ibeacon",
            uuid: BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825"), major: 5, minor: 6,
            timestamp: Instant(seconds: 1_795_335_302.123))
        #expect(payload.json == """
            {"id":"alice-keys","beacon":"ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6","name":"Alice's keys",\
            "node":"kitchen-1","room":"kitchen","rssi":-71,"rssiFiltered":-69.4,"sigma":1.8,"measuredPower":-59,\
            "distance":2.31,"proximity":"near","address":"c4:a1:b2:c3:d4:e5","format":"ibeacon",\
            "uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825","major":5,"minor":6,"timestamp":"2026-11-22T08:15:02.123Z"}
            """)
    }

    @Test func aBeaconNoLongerHeardHasNoDistance() {
        let payload = MeasurementPayload(
            id: "mac-c4a1b2c3d4e5", beacon: "mac-c4a1b2c3d4e5", node: "hall", room: "hall", rssi: nil,
            rssiFiltered: nil, sigma: nil, measuredPower: nil, distance: nil, proximity: .unknown, address: nil,
            timestamp: Instant(seconds: 0))
        #expect(payload.json == #"{"id":"mac-c4a1b2c3d4e5","beacon":"mac-c4a1b2c3d4e5","node":"hall","room":"hall","proximity":"unknown","timestamp":"1970-01-01T00:00:00.000Z"}"#)
    }

    @Test("every field at its longest fits the room the writer reserves")
    func theLongestPayloadFitsItsCapacity() {
        let payload = MeasurementPayload(
            id: String(repeating: "a", count: 64), beacon: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-65535-65535",
            name: String(repeating: "\u{1}", count: 128), node: String(repeating: "n", count: 64),
            room: String(repeating: "r", count: 64), rssi: Int.min, rssiFiltered: -1.7e308, sigma: 1.7e308,
            measuredPower: Int.min, distance: 1.7e308, proximity: .immediate, address: BluetoothAddress("c4:a1:b2:c3:d4:e5"),
            format: "eddystone-uid", uuid: BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825"), major: 65535, minor: 65535,
            timestamp: Instant(seconds: 1_795_335_302.123))
        #expect(payload.json.hasSuffix(#""timestamp":"2026-11-22T08:15:02.123Z"}"#))
    }
}
