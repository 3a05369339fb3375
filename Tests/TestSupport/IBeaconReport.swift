/// One legacy LE Advertising Report carrying an iBeacon, as HCI event bytes (event code, length,
/// parameters; no H4 type byte): what a controller sends for a beacon it hears, to build captures
/// and feed fake controllers with.
public enum IBeaconReport {
    /// ADV_NONCONN_IND from the random address `address` (its low 48 bits, least significant
    /// byte first on the wire), flags, then Apple's iBeacon data with `measuredPower` at 1 m.
    public static func event(
        address: UInt64, uuid: [UInt8], major: UInt16, minor: UInt16, measuredPower: Int8 = -59, rssi: Int8
    ) -> [UInt8] {
        var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid
        data += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), UInt8(bitPattern: measuredPower)]
        var parameters: [UInt8] = [0x02, 0x01, 0x03, 0x01]  // subevent, one report, ADV_NONCONN_IND, random address
        for k in 0..<6 { parameters.append(UInt8(truncatingIfNeeded: address >> UInt64(8 * k))) }
        parameters.append(UInt8(data.count))
        parameters += data
        parameters.append(UInt8(bitPattern: rssi))
        return [0x3E, UInt8(parameters.count)] + parameters
    }
}
