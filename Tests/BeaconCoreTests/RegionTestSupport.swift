import Testing
@testable import BeaconCore

let deploymentUUID = BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825")!
let otherUUID = BeaconUUID("e2c56db5-dffb-48d2-b060-d0f5a71096e0")!

func region(
    _ id: String, uuid: BeaconUUID = deploymentUUID, major: UInt16? = nil, minor: UInt16? = nil,
    notifyOnEntry: Bool = true, notifyOnExit: Bool = true
) throws -> BeaconRegion {
    try #require(
        BeaconRegion(
            id: try topicID(id), uuid: uuid, major: major, minor: minor, notifyOnEntry: notifyOnEntry,
            notifyOnExit: notifyOnExit))
}

/// An iBeacon sighting with the canonical id the agent would give it.
func sighting(
    uuid: BeaconUUID = deploymentUUID, major: UInt16 = 5, minor: UInt16 = 6, address: UInt64 = 0xC4A1_B2C3_D4E5,
    rssi: Double = -70, distance: Double? = 2, proximity: Proximity = .near
) -> BeaconSighting {
    BeaconSighting(
        beacon: BeaconID(rawValue: "ibeacon-\(uuid)-\(major)-\(minor)"), uuid: uuid, major: major, minor: minor,
        address: BluetoothAddress(rawValue: address), rssi: rssi, distance: distance, proximity: proximity)
}

func at(_ seconds: Double) -> Instant { Instant(seconds: 1_795_335_300 + seconds) }
