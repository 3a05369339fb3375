import BeaconCore
import Foundation
import IdentityCrypto

/// Messages shaped exactly as the foreign nodes publish them, field for field and in their order:
/// ESPresense's `BleFingerprint::fill` (src/BleFingerprint.cpp, github.com/ESPresense/ESPresense:
/// `mac`, `id`, `name`, `rssi@1m`, `rssi`, `rxAdj`, `rssiVar`, `distance`, `var`, `close`, `int`;
/// numbers with two decimals through `serialized(String(x, 2))`), Theengs Gateway's
/// `ble_gateway.py` (github.com/theengs/gateway: `manufacturerdata` company id little-endian first,
/// then `id`, `rssi`; decoded fields as TheengsDecoder 2.5.0 writes them, checked against
/// `GatewayFixture`, which the gateway's own code made) and
/// OpenMQTTGateway's `ZgatewayBT.cpp` (`id` upper case, `mac_type`, `adv_type`).
public enum ForeignNodePayloads {
    public static let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
    /// The Core spec's sample IRK (Vol 3 Part H, appendix D.6): a test key, no one's phone.
    public static let sampleKeyHex = "ec0234a357c8ad05341010a60a397d9b"
    public static let crypto = LibCrypto()
    public static var sampleKey: IdentityResolvingKey { try! IdentityResolvingKey(parsing: sampleKeyHex) }
    public static var sampleKeyID: BeaconID { BeaconID(sampleKey.canonicalID(sha256: crypto.sha256)) }

    /// ESPresense's report of an iBeacon it hears.
    public static func espresense(id: String, rssi: Double?, rssiAt1m: Int? = -59, distance: Double? = nil, name: String? = nil,
                           mac: String = "c4a1b2c3d4e5") -> String {
        var fields = [#""mac":"\#(mac)""#, #""id":"\#(id)""#]
        if let name { fields.append(#""name":"\#(name)""#) }
        if let rssiAt1m { fields.append(#""rssi@1m":\#(rssiAt1m)"#) }
        if let rssi { fields.append(#""rssi":\#(two(rssi))"#) }
        fields.append(#""rxAdj":0"#)
        if rssi != nil { fields.append(#""rssiVar":3.17"#) }
        let at1m = Double(rssiAt1m ?? -65)
        let metres = distance ?? rssi.map { pow(10, (at1m - $0) / 27) } ?? 1
        fields.append(#""distance":\#(two(metres))"#)
        fields.append(#""var":0.41"#)
        fields.append(#""int":1011"#)
        return "{" + fields.joined(separator: ",") + "}"
    }

    public static func two(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = Int(abs(hundredths))
        let cents = magnitude % 100
        return "\(sign)\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents)"
    }

    /// Theengs Gateway, raw (no decoder match or `publish_advdata`): manufacturer data and address,
    /// with its `json.dumps` spacing (the generated `GatewayFixture` holds what it really publishes).
    public static func theengsRaw(address: String = "C4:A1:B2:C3:D4:E5", rssi: Int, manufacturerData: String) -> String {
        #"{"manufacturerdata": "\#(manufacturerData)", "id": "\#(address)", "rssi": \#(rssi)}"#
    }

    /// Theengs Gateway, decoded iBeacon, as TheengsDecoder 2.5.0 writes it (`GatewayFixture`): raw
    /// data left out (its default), `major` and `minor` as signed 16-bit numbers (62207 is −3329).
    public static func theengsIBeacon(address: String = "C4:A1:B2:C3:D4:E5", rssi: Int, major: Int, minor: Int, txpower: Int = -59) -> String {
        func signed(_ value: Int) -> Int { value > 0x7FFF ? value - 0x1_0000 : value }
        return #"{"id": "\#(address)", "rssi": \#(rssi), "brand": "GENERIC", "model": "iBeacon", "model_id": "IBEACON", "type": "BCON", "mfid": "4c00", "uuid": "fda50693a4e24fb1afcfc6eb07647825", "major": \#(signed(major)), "minor": \#(signed(minor)), "txpower": \#(txpower)}"#
    }

    /// OpenMQTTGateway with raw advertising data on.
    public static func openMQTTGateway(address: String, macType: Int, rssi: Int, manufacturerData: String? = nil,
                                serviceData: String? = nil, serviceUUID: String? = nil) -> String {
        var fields = [#""id":"\#(address)""#, #""mac_type":\#(macType)"#, #""adv_type":0"#]
        if let manufacturerData { fields.append(#""manufacturerdata":"\#(manufacturerData)""#) }
        if let serviceData { fields.append(#""servicedata":"\#(serviceData)""#) }
        if let serviceUUID { fields.append(#""servicedatauuid":"\#(serviceUUID)""#) }
        fields.append(#""rssi":\#(rssi)"#)
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// An iBeacon's manufacturer data as the gateways write it: company id 0x004c little-endian first.
    public static func iBeaconData(major: Int, minor: Int, power: UInt8 = 0xC5) -> String {
        "4c000215" + uuid.replacingOccurrences(of: "-", with: "") + hex16(major) + hex16(minor) + HexDigits.string([power])
    }

    public static func hex16(_ value: Int) -> String { HexDigits.string([UInt8(value >> 8), UInt8(value & 0xFF)]) }

    /// The iBeacon's canonical id.
    public static func iBeacon(major: Int, minor: Int) -> BeaconID { BeaconID(rawValue: "ibeacon-\(uuid)-\(major)-\(minor)") }

    /// A resolvable private address of the sample key's device.
    public static func phoneAddress(prand: UInt32) -> BluetoothAddress {
        IdentityResolvingKey.resolvablePrivateAddress(prand: prand, ah: crypto.addressHash(for: sampleKey))
    }
}

