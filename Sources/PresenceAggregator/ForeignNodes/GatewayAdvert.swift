import BeaconCore

/// One advertisement as a BLE-to-MQTT gateway publishes it on `<…>/BTtoMQTT/<address without colons>`,
/// checked against what the gateways' own code makes (`Tests/Fixtures/Gateways`, `.ci/theengs-fixture`):
/// Theengs Gateway (TheengsGateway/ble_gateway.py of github.com/theengs/gateway: `id`, `rssi`,
/// `name`, and — when its decoder does not know the device — raw `manufacturerdata`, the company id
/// little-endian first, and `servicedata` with `servicedatauuid`) and OpenMQTTGateway
/// (main/ZgatewayBT.cpp of github.com/1technophile/OpenMQTTGateway: the same names, `mac_type`,
/// NimBLE's address type, and raw data only with `pubadvdata` on).
///
/// Raw data, where present, is the authority: it goes through our own beacon decoder
/// (`BeaconDecoder`: iBeacon, AltBeacon, Eddystone). Without it, the Theengs decoder's iBeacon fields
/// give the beacon (`model_id` `IBEACON`, `uuid` as 32 hex, `major`, `minor`, `txpower`:
/// src/devices/iBeacon_json.h of github.com/theengs/decoder) — `major` and `minor` read as signed
/// 16-bit numbers by its `value_from_hex_string`, so −32768…−1 stands for 32768…65535.
public struct GatewayAdvert: Sendable, Hashable {
    public var address: BluetoothAddress
    /// `mac_type` when the gateway sends it (OpenMQTTGateway); nil otherwise (Theengs Gateway).
    public var addressType: AdvertisingAddressType?
    /// nil for an advert without an RSSI: presence, not range, and no evidence of a room.
    public var rssi: Int?
    /// The advertised identity, nil for an advert without one of ours.
    public var identity: BeaconID.Components?
    /// The beacon's advertised RSSI at 1 m, when its frame carries one.
    public var measuredPower: Int?

    /// The longest message accepted; a raw advert is under 200 bytes, a decoded one under 600.
    public static let maximumBytes = 4096

    public init(address: BluetoothAddress, addressType: AdvertisingAddressType? = nil, rssi: Int?,
                identity: BeaconID.Components?, measuredPower: Int?) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.identity = identity
        self.measuredPower = measuredPower
    }

    /// Parses a gateway's message. Never traps; an error names the field that is wrong.
    public init(payload: [UInt8]) throws(ForeignMessageError) {
        let object = try ForeignMessageError.jsonObject(payload, maximumBytes: Self.maximumBytes)
        func integer(_ key: String) throws(ForeignMessageError) -> Int64? {
            switch object[key] {
            case nil, .null?: return nil
            case .number(let number)?:
                guard let integer = number.integer else { throw ForeignMessageError("\(key): expected a whole number", field: key) }
                return integer
            case let other?: throw ForeignMessageError("\(key): expected a number, got \(other.kindDescription)", field: key)
            }
        }
        func hex(_ key: String) throws(ForeignMessageError) -> [UInt8]? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?:
                guard text.utf8.count <= 2 * 251, let bytes = HexDigits.bytes(text) else {
                    throw ForeignMessageError("\(key): expected an even number of hex digits (at most 251 bytes)", field: key)
                }
                return bytes
            case let other?: throw ForeignMessageError("\(key): expected a hex string, got \(other.kindDescription)", field: key)
            }
        }
        guard case .string(let idText)? = object["id"], let address = BluetoothAddress(idText) else {
            throw ForeignMessageError("id: expected the advertiser's address, e.g. AA:BB:CC:DD:EE:FF", field: "id")
        }
        self.address = address
        switch try integer("mac_type") {
        case nil: addressType = nil
        // NimBLE's address types: 0 public, 1 random, 2 and 3 identity addresses the controller resolved.
        case let type? where (0...3).contains(type): addressType = AdvertisingAddressType(rawValue: UInt8(type))
        case let type?: throw ForeignMessageError("mac_type: \(type) is not an address type (0 public, 1 random, 2 or 3 identity)", field: "mac_type")
        }
        if let value = try integer("rssi") {
            guard (-127...20).contains(value) else { throw ForeignMessageError("rssi: \(value) is out of range -127…20", field: "rssi") }
            // 0 is what some gateways write for "no RSSI" (Theengs Gateway's `get("rssi", 0)`).
            rssi = value == 0 ? nil : Int(value)
        } else {
            rssi = nil
        }

        // The advertising data the gateway heard, rebuilt as AD structures for our decoder.
        var data: [UInt8] = []
        let manufacturer = try hex("manufacturerdata")
        if let manufacturer {
            guard manufacturer.count >= 2 else { throw ForeignMessageError("manufacturerdata: shorter than a company id", field: "manufacturerdata") }
            data.reserveCapacity(manufacturer.count + 2)
            data.append(UInt8(manufacturer.count + 1))
            data.append(0xFF)
            data.append(contentsOf: manufacturer)
        }
        if let service = try hex("servicedata") {
            guard case .string(var uuidText)? = object["servicedatauuid"] else {
                throw ForeignMessageError("servicedatauuid: required with servicedata", field: "servicedatauuid")
            }
            // Theengs Gateway writes `feaa` (ble_gateway.py: `uuid[4:8]`), OpenMQTTGateway `0xfeaa` (NimBLEUUID::toString).
            if uuidText.hasPrefix("0x") || uuidText.hasPrefix("0X") { uuidText.removeFirst(2) }
            guard uuidText.utf8.count == 4, let uuid = HexDigits.bytes(uuidText), service.count <= 251 else {
                throw ForeignMessageError("servicedatauuid: expected a 16-bit UUID as 4 hex digits", field: "servicedatauuid")
            }
            data += [UInt8(service.count + 3), 0x16, uuid[1], uuid[0]] + service
        }
        if !data.isEmpty, let beacon = BeaconDecoder.decode(advertisingData: data) {
            identity = beacon.advertisedComponents
            measuredPower = beacon.measuredPower
            return
        }
        // No raw frame of ours: the gateway's own decoding, for iBeacons — unless its raw
        // manufacturer data came too, which the decoded fields were read from and which says it is none.
        guard manufacturer == nil, case .string(let model)? = object["model_id"], model == "IBEACON" else {
            identity = nil
            measuredPower = nil
            return
        }
        guard case .string(let uuidText)? = object["uuid"], let uuid = BeaconUUID(uuidText) else {
            throw ForeignMessageError("uuid: expected 32 hex digits", field: "uuid")
        }
        /// A 16-bit field as the decoder writes it: signed (−32768…−1 is 32768…65535), or unsigned
        /// as a decoder that reads it so would.
        func sixteenBits(_ key: String) throws(ForeignMessageError) -> UInt16 {
            guard let value = try integer(key) else { throw ForeignMessageError("\(key): required with model_id IBEACON", field: key) }
            guard (-0x8000...0xFFFF).contains(value) else {
                throw ForeignMessageError("\(key): \(value) is out of range -32768…65535", field: key)
            }
            return UInt16(truncatingIfNeeded: value)
        }
        identity = .iBeacon(uuid: uuid, major: try sixteenBits("major"), minor: try sixteenBits("minor"))
        // The decoder writes `txpower` only when the power byte's top bit is set, already signed
        // (−128…−1); otherwise it writes that byte as `volt`, and a `txpower` beside it is
        // OpenMQTTGateway's TX Power Level structure, the radio's output, not the power at 1 m.
        if object["volt"] != nil {
            measuredPower = nil
            return
        }
        switch try integer("txpower") {
        case let power? where (-127 ... -1).contains(power): measuredPower = Int(power)
        case let power? where (129...255).contains(power): measuredPower = Int(power) - 256
        default: measuredPower = nil
        }
    }
}
