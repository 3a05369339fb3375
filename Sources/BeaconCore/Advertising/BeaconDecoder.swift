/// Finds the beacon in one report's advertising data.
///
/// One advertisement carries one beacon frame in practice (Eddystone sends one frame per
/// advertisement and rotates UID/URL/TLM; iBeacon and AltBeacon fill most of the 31 bytes). Should
/// data carry several, `decode` returns the first in advertising-data order and `decodeAll` returns
/// every one. Eddystone frames are recognised by their service data alone; the 16-bit UUID list
/// that should accompany them is not required (not every beacon sends it).
///
/// A structure that runs past the end stops the walk: frames before it still count, nothing after
/// it is trusted.
///
/// Each report is decoded on its own: an advertisement and its scan response arrive as two reports,
/// and many commercial iBeacons put the iBeacon in the scan response (the horizon capture's do).
public enum BeaconDecoder {
    /// The first beacon frame in `advertisingData`, or nil.
    ///
    /// The iBeacon path is a single pass over the length bytes with no allocation: it compares the
    /// six fixed header bytes in place and reads the fields straight out of the slice.
    public static func decode(advertisingData bytes: ArraySlice<UInt8>) -> Beacon? {
        var position = bytes.startIndex
        let end = bytes.endIndex
        while position < end {
            let length = Int(bytes[position])
            if length == 0 { return nil }  // padding: nothing follows
            let next = position + 1 + length
            if next > end { return nil }  // runs past the end: stop, trust nothing more
            let type = bytes[position + 1]
            if type == 0xFF {
                // iBeacon: 1a ff 4c 00 02 15 <uuid 16> <major 2> <minor 2> <power 1>
                if length == 26, bytes[position + 2] == 0x4C, bytes[position + 3] == 0x00,
                    bytes[position + 4] == IBeacon.appleType, bytes[position + 5] == IBeacon.appleLength
                {
                    let fields = position + 6
                    return .iBeacon(
                        IBeacon(
                            uuid: BeaconUUID(
                                high: bigEndian64(bytes, at: fields), low: bigEndian64(bytes, at: fields + 8)),
                            major: UInt16(bytes[fields + 16]) << 8 | UInt16(bytes[fields + 17]),
                            minor: UInt16(bytes[fields + 18]) << 8 | UInt16(bytes[fields + 19]),
                            measuredPower: Int8(bitPattern: bytes[fields + 20])))
                }
                if length == 27, let data = ManufacturerData(structureData: bytes[(position + 2)..<next]),
                    let beacon = AltBeacon(manufacturerData: data)
                {
                    return .altBeacon(beacon)
                }
            } else if type == AdvertisingDataType.serviceData16.rawValue, length >= 4,
                bytes[position + 2] == 0xAA, bytes[position + 3] == 0xFE,
                let beacon = Beacon(eddystoneFrame: bytes[(position + 4)..<next])
            {
                return beacon
            }
            position = next
        }
        return nil
    }

    /// The first beacon frame in `advertisingData`, or nil.
    public static func decode(advertisingData bytes: [UInt8]) -> Beacon? {
        decode(advertisingData: bytes[...])
    }

    /// Every beacon frame in `advertisingData`, in order (for discovery output; allocates).
    public static func decodeAll(advertisingData bytes: ArraySlice<UInt8>) -> [Beacon] {
        var out: [Beacon] = []
        for structure in AdvertisingData(bytes) {
            if let beacon = Beacon(structure: structure) { out.append(beacon) }
        }
        return out
    }

    /// Eight bytes big-endian from `index`; the caller has checked they are in range.
    @inline(__always)
    private static func bigEndian64(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<8 { value = value << 8 | UInt64(bytes[index + offset]) }
        return value
    }
}
