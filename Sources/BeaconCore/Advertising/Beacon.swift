/// One decoded beacon frame, in any supported format.
///
/// Bitwise-copyable (no reference inside, the compiler checks): every decoded advertisement carries
/// one, and a reference would make each copy and destroy of it switch on the case.
public enum Beacon: Hashable, Sendable, BitwiseCopyable {
    /// An Apple iBeacon frame.
    case iBeacon(IBeacon)
    /// An AltBeacon frame.
    case altBeacon(AltBeacon)
    /// An Eddystone-UID frame: a namespace and an instance.
    case eddystoneUID(EddystoneUID)
    /// An Eddystone-URL frame.
    case eddystoneURL(EddystoneURL)
    /// An Eddystone-TLM telemetry frame.
    case eddystoneTLM(EddystoneTLM)
    /// An Eddystone-EID frame: a rotating ephemeral id.
    case eddystoneEID(EddystoneEID)

    /// Decodes Manufacturer Specific Data: an iBeacon or an AltBeacon, else nil.
    public init?(manufacturerData: ManufacturerData) {
        if let beacon = IBeacon(manufacturerData: manufacturerData) {
            self = .iBeacon(beacon)
        } else if let beacon = AltBeacon(manufacturerData: manufacturerData) {
            self = .altBeacon(beacon)
        } else {
            return nil
        }
    }

    /// Decodes the service data of UUID 0xFEAA (frame-type byte first), else nil.
    public init?(eddystoneFrame frame: ArraySlice<UInt8>) {
        guard let frameType = frame.first else { return nil }
        switch frameType {
        case Eddystone.uidFrame:
            guard let beacon = EddystoneUID(frame: frame) else { return nil }
            self = .eddystoneUID(beacon)
        case Eddystone.urlFrame:
            guard let beacon = EddystoneURL(frame: frame) else { return nil }
            self = .eddystoneURL(beacon)
        case Eddystone.tlmFrame:
            guard let beacon = EddystoneTLM(frame: frame) else { return nil }
            self = .eddystoneTLM(beacon)
        case Eddystone.eidFrame:
            guard let beacon = EddystoneEID(frame: frame) else { return nil }
            self = .eddystoneEID(beacon)
        default:
            return nil
        }
    }

    /// Decodes one advertising data structure, else nil.
    public init?(structure: AdvertisingStructure) {
        switch structure.type {
        case .manufacturerSpecificData:
            guard let data = ManufacturerData(structureData: structure.data) else { return nil }
            self.init(manufacturerData: data)
        case .serviceData16:
            guard let data = ServiceData(structureData: structure.data), data.uuid == Eddystone.serviceUUID
            else { return nil }
            self.init(eddystoneFrame: data.payload)
        default:
            return nil
        }
    }

    /// The RSSI (dBm) expected at 1 m: iBeacon's measured power, AltBeacon's reference RSSI,
    /// Eddystone's TX power at 0 m minus 41 dB. Nil for TLM, which carries no power.
    public var measuredPower: Int? {
        switch self {
        case .iBeacon(let beacon): Int(beacon.measuredPower)
        case .altBeacon(let beacon): Int(beacon.referenceRSSI)
        case .eddystoneUID(let beacon): beacon.measuredPower
        case .eddystoneURL(let beacon): beacon.measuredPower
        case .eddystoneEID(let beacon): beacon.measuredPower
        case .eddystoneTLM: nil
        }
    }

    /// The id the beacon advertises, for formats that carry a stable one (iBeacon, AltBeacon,
    /// Eddystone-UID); nil for Eddystone URL, TLM and EID, which are known by address.
    public var advertisedID: BeaconID? {
        switch self {
        case .iBeacon(let beacon): beacon.id
        case .altBeacon(let beacon): beacon.id
        case .eddystoneUID(let beacon): beacon.id
        case .eddystoneURL, .eddystoneTLM, .eddystoneEID: nil
        }
    }

    /// The canonical id (docs/MQTT.md): the advertised id, or `mac-<12 hex>` of `address` for formats without one.
    public func id(address: BluetoothAddress) -> BeaconID {
        advertisedID ?? BeaconID.mac(address)
    }

    /// The canonical id taken apart, for formats with an advertised identity; allocation-free, so
    /// it can key per-report state. Nil for Eddystone URL, TLM and EID (see `identity(address:)`).
    public var advertisedComponents: BeaconID.Components? {
        switch self {
        case .iBeacon(let beacon): .iBeacon(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)
        case .altBeacon(let beacon): .altBeacon(beacon.beaconID)
        case .eddystoneUID(let beacon): .eddystone(namespace: beacon.namespace, instance: beacon.instance)
        case .eddystoneURL, .eddystoneTLM, .eddystoneEID: nil
        }
    }

    /// The identity as `BeaconID.Components`, falling back to the address; `BeaconID(identity)`
    /// is the same string as `id(address:)`.
    public func identity(address: BluetoothAddress) -> BeaconID.Components {
        advertisedComponents ?? .mac(address)
    }
}
