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
        bytes.withUnsafeBufferPointer { buffer in
            decode(buffer, from: 0, to: buffer.count, storage: bytes, storageOffset: bytes.startIndex)
        }
    }

    /// The first beacon frame in `buffer[start..<end]`, read in place: no slice is made (a slice
    /// costs a retain and a release of the storage) except for the rare Eddystone frame, which is
    /// cut from `storage`, whose index `storageOffset` is `buffer[0]`.
    ///
    /// `start...end` must lie within `buffer`; every read below is checked against `end` first.
    @inline(__always)
    static func decode(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, storage: ArraySlice<UInt8>,
        storageOffset: Int
    ) -> Beacon? {
        guard let raw = UnsafeRawPointer(buffer.baseAddress), start < end, end <= buffer.count else { return nil }
        var position = start
        while position < end {
            let length = Int(raw.load(fromByteOffset: position, as: UInt8.self))
            if length == 0 { return nil }  // padding: nothing follows
            let next = position + 1 + length
            if next > end { return nil }  // runs past the end: stop, trust nothing more
            let type = raw.load(fromByteOffset: position + 1, as: UInt8.self)
            if type == 0xFF {
                if length == 26 {
                    // iBeacon: 1a ff 4c 00 02 15 <uuid 16> <major 2> <minor 2> <power 1>, all in
                    // `position..<next`; the four header bytes compared as one little-endian word.
                    if raw.loadUnaligned(fromByteOffset: position + 2, as: UInt32.self).littleEndian == 0x1502_004C {
                        let fields = position + 6
                        return .iBeacon(
                            IBeacon(
                                uuid: BeaconUUID(
                                    high: raw.loadUnaligned(fromByteOffset: fields, as: UInt64.self).bigEndian,
                                    low: raw.loadUnaligned(fromByteOffset: fields + 8, as: UInt64.self).bigEndian),
                                major: raw.loadUnaligned(fromByteOffset: fields + 16, as: UInt16.self).bigEndian,
                                minor: raw.loadUnaligned(fromByteOffset: fields + 18, as: UInt16.self).bigEndian,
                                measuredPower: raw.load(fromByteOffset: fields + 20, as: Int8.self)))
                    }
                } else if length == 27 {
                    // AltBeacon: 1b ff <company 2 LE> be ac <id 20> <reference rssi> <reserved>.
                    if raw.loadUnaligned(fromByteOffset: position + 4, as: UInt16.self).bigEndian == AltBeacon.beaconCode {
                        let fields = position + 6
                        return .altBeacon(
                            AltBeacon(
                                manufacturer: raw.loadUnaligned(fromByteOffset: position + 2, as: UInt16.self).littleEndian,
                                beaconID: AltBeacon.Identifier(
                                    leading: BeaconUUID(
                                        high: raw.loadUnaligned(fromByteOffset: fields, as: UInt64.self).bigEndian,
                                        low: raw.loadUnaligned(fromByteOffset: fields + 8, as: UInt64.self).bigEndian),
                                    trailing: raw.loadUnaligned(fromByteOffset: fields + 16, as: UInt32.self).bigEndian),
                                referenceRSSI: raw.load(fromByteOffset: fields + 20, as: Int8.self),
                                manufacturerReserved: raw.load(fromByteOffset: fields + 21, as: UInt8.self)))
                    }
                }
            } else if type == AdvertisingDataType.serviceData16.rawValue, length >= 4,
                raw.load(fromByteOffset: position + 2, as: UInt8.self) == 0xAA,
                raw.load(fromByteOffset: position + 3, as: UInt8.self) == 0xFE,
                let beacon = Beacon(
                    eddystoneFrame: storage[(storageOffset + position + 4)..<(storageOffset + next)])
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
}
