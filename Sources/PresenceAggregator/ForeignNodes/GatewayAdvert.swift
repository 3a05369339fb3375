import BeaconCore

/// One advertisement as a BLE-to-MQTT gateway publishes it on `<…>/BTtoMQTT/<address without colons>`:
/// Theengs Gateway (TheengsGateway/ble_gateway.py of github.com/theengs/gateway: `id`, `rssi`,
/// `name`, raw `manufacturerdata` — the company id little-endian first — and `servicedata` with
/// `servicedatauuid`, or the fields its decoder found) and OpenMQTTGateway (main/ZgatewayBT.cpp of
/// github.com/1technophile/OpenMQTTGateway: the same, plus `mac_type`, NimBLE's address type).
///
/// Raw data goes through our own beacon decoder (`BeaconDecoder`: iBeacon, AltBeacon, Eddystone);
/// without raw data the Theengs decoder's iBeacon fields (`model_id` `IBEACON`, `uuid` as 32 hex,
/// `major`, `minor`, `txpower`: src/devices/iBeacon_json.h of github.com/theengs/decoder) give it.
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
                guard let integer = number.integer else { throw ForeignMessageError("\(key): expected a whole number") }
                return integer
            case let other?: throw ForeignMessageError("\(key): expected a number, got \(other.kindDescription)")
            }
        }
        func hex(_ key: String) throws(ForeignMessageError) -> [UInt8]? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?:
                guard text.utf8.count <= 2 * 251, let bytes = HexDigits.bytes(text) else {
                    throw ForeignMessageError("\(key): expected an even number of hex digits (at most 251 bytes)")
                }
                return bytes
            case let other?: throw ForeignMessageError("\(key): expected a hex string, got \(other.kindDescription)")
            }
        }
        guard case .string(let idText)? = object["id"], let address = BluetoothAddress(idText) else {
            throw ForeignMessageError("id: expected the advertiser's address, e.g. AA:BB:CC:DD:EE:FF")
        }
        self.address = address
        switch try integer("mac_type") {
        case nil: addressType = nil
        // NimBLE's address types: 0 public, 1 random, 2 and 3 identity addresses the controller resolved.
        case let type? where (0...3).contains(type): addressType = AdvertisingAddressType(rawValue: UInt8(type))
        case let type?: throw ForeignMessageError("mac_type: \(type) is not an address type (0 public, 1 random, 2 or 3 identity)")
        }
        if let value = try integer("rssi") {
            guard (-127...20).contains(value) else { throw ForeignMessageError("rssi: \(value) is out of range -127…20") }
            // 0 is what some gateways write for "no RSSI" (Theengs Gateway's `get("rssi", 0)`).
            rssi = value == 0 ? nil : Int(value)
        } else {
            rssi = nil
        }

        // The advertising data the gateway heard, rebuilt as AD structures for our decoder.
        var data: [UInt8] = []
        if let manufacturer = try hex("manufacturerdata") {
            guard manufacturer.count >= 2 else { throw ForeignMessageError("manufacturerdata: shorter than a company id") }
            data.reserveCapacity(manufacturer.count + 2)
            data.append(UInt8(manufacturer.count + 1))
            data.append(0xFF)
            data.append(contentsOf: manufacturer)
        }
        if let service = try hex("servicedata") {
            guard case .string(var uuidText)? = object["servicedatauuid"] else {
                throw ForeignMessageError("servicedatauuid: required with servicedata")
            }
            if uuidText.hasPrefix("0x") || uuidText.hasPrefix("0X") { uuidText.removeFirst(2) }
            guard uuidText.utf8.count == 4, let uuid = HexDigits.bytes(uuidText), service.count <= 251 else {
                throw ForeignMessageError("servicedatauuid: expected a 16-bit UUID as 4 hex digits")
            }
            data += [UInt8(service.count + 3), 0x16, uuid[1], uuid[0]] + service
        }
        if !data.isEmpty, let beacon = BeaconDecoder.decode(advertisingData: data) {
            identity = beacon.advertisedComponents
            measuredPower = beacon.measuredPower
            return
        }
        // No raw frame of ours: the gateway's own decoding, for iBeacons.
        guard case .string(let model)? = object["model_id"], model == "IBEACON" else {
            identity = nil
            measuredPower = nil
            return
        }
        guard case .string(let uuidText)? = object["uuid"], let uuid = BeaconUUID(uuidText) else {
            throw ForeignMessageError("uuid: expected 32 hex digits")
        }
        guard let major = try integer("major"), let minor = try integer("minor"),
            (0...0xFFFF).contains(major), (0...0xFFFF).contains(minor)
        else { throw ForeignMessageError("major, minor: required, 0…65535") }
        identity = .iBeacon(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
        // The decoder reads the power byte unsigned; a byte above 127 is a negative dBm.
        switch try integer("txpower") {
        case let power? where (-127...0).contains(power): measuredPower = Int(power)
        case let power? where (129...255).contains(power): measuredPower = Int(power) - 256
        default: measuredPower = nil
        }
    }
}
