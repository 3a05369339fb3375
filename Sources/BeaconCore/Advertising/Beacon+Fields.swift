/// A beacon's advertising format in one byte (a tracked beacon keeps its last one so), and the one
/// spelling of each in output.
public enum BeaconFormat: UInt8, Sendable, CaseIterable {
    /// One case per decoded frame format, as in ``Beacon``.
    case iBeacon, altBeacon, eddystoneUID, eddystoneURL, eddystoneTLM, eddystoneEID

    /// `ibeacon`, `altbeacon`, `eddystone-uid`, `eddystone-url`, `eddystone-tlm`, `eddystone-eid`.
    public var name: String {
        switch self {
        case .iBeacon: "ibeacon"
        case .altBeacon: "altbeacon"
        case .eddystoneUID: "eddystone-uid"
        case .eddystoneURL: "eddystone-url"
        case .eddystoneTLM: "eddystone-tlm"
        case .eddystoneEID: "eddystone-eid"
        }
    }
}

extension Beacon: CustomStringConvertible {
    /// Which format this is, without its contents.
    public var kind: BeaconFormat {
        switch self {
        case .iBeacon: .iBeacon
        case .altBeacon: .altBeacon
        case .eddystoneUID: .eddystoneUID
        case .eddystoneURL: .eddystoneURL
        case .eddystoneTLM: .eddystoneTLM
        case .eddystoneEID: .eddystoneEID
        }
    }

    /// The format's name in output (`BeaconFormat.name`).
    public var format: String { kind.name }

    /// `format`, `beacon` (the canonical id for `address`), then `formatFields`.
    public func fields(address: BluetoothAddress) -> [BeaconField] {
        [BeaconField("format", .string(format)), BeaconField("beacon", .string(id(address: address).rawValue))]
            + formatFields
    }

    /// The format's own fields, in a fixed order:
    /// - ibeacon: `uuid`, `major`, `minor`, `measuredPower`
    /// - altbeacon: `beaconId` (40 hex), `manufacturer` (company id), `beaconCode` (`beac`),
    ///   `measuredPower` (reference RSSI), `mfgReserved`
    /// - eddystone-uid: `namespace`, `instance`, `txPower` (at 0 m), `measuredPower` (at 1 m)
    /// - eddystone-url: `url`, `txPower`, `measuredPower`
    /// - eddystone-tlm plain: `version` 0, `battery` (mV), `temperature` (°C), `advCount`,
    ///   `secCount` (0.1 s units, as sent), `uptime` (s); `battery` and `temperature` are left out when
    ///   the beacon says it does not measure them (0 mV, 0x8000)
    /// - eddystone-tlm encrypted: `version` 1, `etlm` (24 hex), `salt` (4 hex), `mic` (4 hex)
    /// - eddystone-eid: `eid` (16 hex), `txPower`, `measuredPower`
    public var formatFields: [BeaconField] {
        switch self {
        case .iBeacon(let beacon):
            return [
                BeaconField("uuid", .string(beacon.uuid.description)),
                BeaconField("major", .int(Int(beacon.major))),
                BeaconField("minor", .int(Int(beacon.minor))),
                BeaconField("measuredPower", .int(Int(beacon.measuredPower))),
            ]
        case .altBeacon(let beacon):
            return [
                BeaconField("beaconId", .string(beacon.beaconID.description)),
                BeaconField("manufacturer", .int(Int(beacon.manufacturer))),
                BeaconField("beaconCode", .string(HexDigits.string(UInt64(AltBeacon.beaconCode), byteCount: 2))),
                BeaconField("measuredPower", .int(Int(beacon.referenceRSSI))),
                BeaconField("mfgReserved", .int(Int(beacon.manufacturerReserved))),
            ]
        case .eddystoneUID(let beacon):
            return [
                BeaconField("namespace", .string(beacon.namespace.description)),
                BeaconField("instance", .string(beacon.instanceHex)),
                BeaconField("txPower", .int(Int(beacon.txPower))),
                BeaconField("measuredPower", .int(beacon.measuredPower)),
            ]
        case .eddystoneURL(let beacon):
            return [
                BeaconField("url", .string(beacon.url)),
                BeaconField("txPower", .int(Int(beacon.txPower))),
                BeaconField("measuredPower", .int(beacon.measuredPower)),
            ]
        case .eddystoneTLM(.plain(let telemetry)):
            var out = [BeaconField("version", .int(Int(EddystoneTLM.plainVersion)))]
            if let battery = telemetry.battery { out.append(BeaconField("battery", .int(battery))) }
            if let temperature = telemetry.temperature { out.append(BeaconField("temperature", .double(temperature))) }
            out.append(BeaconField("advCount", .int(Int(telemetry.advertisementCount))))
            out.append(BeaconField("secCount", .int(Int(telemetry.uptimeTenths))))
            out.append(BeaconField("uptime", .double(telemetry.uptimeSeconds)))
            return out
        case .eddystoneTLM(.encrypted(let telemetry)):
            return [
                BeaconField("version", .int(Int(EddystoneTLM.encryptedVersion))),
                BeaconField("etlm", .string(telemetry.encryptedHex)),
                BeaconField("salt", .string(HexDigits.string(UInt64(telemetry.salt), byteCount: 2))),
                BeaconField("mic", .string(HexDigits.string(UInt64(telemetry.integrityCheck), byteCount: 2))),
            ]
        case .eddystoneEID(let beacon):
            return [
                BeaconField("eid", .string(beacon.ephemeralIDHex)),
                BeaconField("txPower", .int(Int(beacon.txPower))),
                BeaconField("measuredPower", .int(beacon.measuredPower)),
            ]
        }
    }

    /// `ibeacon uuid=… major=5 minor=6 measuredPower=-59`: for logs and test failures.
    public var description: String {
        ([format] + formatFields.map(\.description)).joined(separator: " ")
    }
}
