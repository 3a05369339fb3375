/// The advertising data (or scan response data) of one report: a run of length/type/data structures.
///
/// Iterating yields each `AdvertisingStructure` without copying. A length byte of 0 ends the data
/// (controllers pad legacy reports with zeros); a structure whose length runs past the end stops the
/// iteration, and `malformation` says where — never a trap. The accessors below return the first
/// structure of their type, or collect all of them for the lists.
public struct AdvertisingData: Sequence, Hashable, Sendable {
    /// The raw bytes, as the report carried them.
    public let bytes: ArraySlice<UInt8>

    /// Wraps a report's advertising data without copying it.
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// Wraps advertising data held in an array.
    public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// Returns an iterator over the structures, from the first byte.
    public func makeIterator() -> Iterator {
        Iterator(bytes: bytes)
    }

    /// Walks the structures one by one; stops at a zero length, the end, or a malformed structure.
    public struct Iterator: IteratorProtocol, Sendable {
        let bytes: ArraySlice<UInt8>
        var position: Int
        /// Set when iteration stopped at a structure that runs past the end.
        public private(set) var malformation: AdvertisingDataError?

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            self.position = bytes.startIndex
        }

        /// The next structure, or nil at the end, at a zero length byte or at a structure that runs past the end.
        public mutating func next() -> AdvertisingStructure? {
            guard position < bytes.endIndex else { return nil }
            let length = Int(bytes[position])
            // Length 0 is padding: nothing meaningful follows.
            guard length > 0 else {
                position = bytes.endIndex
                return nil
            }
            let available = bytes.endIndex - position - 1
            guard length <= available else {
                malformation = AdvertisingDataError(
                    code: .structureRunsPastEnd, offset: position - bytes.startIndex,
                    declaredLength: length, availableLength: available)
                position = bytes.endIndex
                return nil
            }
            let structure = AdvertisingStructure(
                type: AdvertisingDataType(rawValue: bytes[position + 1]),
                data: bytes[(position + 2)..<(position + 1 + length)],
                offset: position - bytes.startIndex)
            position += 1 + length
            return structure
        }
    }

    /// Why iteration stops early, or nil when every structure is well formed.
    public var malformation: AdvertisingDataError? {
        var iterator = makeIterator()
        while iterator.next() != nil {}
        return iterator.malformation
    }

    /// Throws the malformation, if any: for callers that want to reject bad data outright.
    public func validate() throws(AdvertisingDataError) {
        if let malformation { throw malformation }
    }

    /// The data of the first structure of `type`, if any.
    public func first(_ type: AdvertisingDataType) -> ArraySlice<UInt8>? {
        for structure in self where structure.type == type { return structure.data }
        return nil
    }

    /// The data of every structure of `type`, in order.
    public func all(_ type: AdvertisingDataType) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        for structure in self where structure.type == type { out.append(structure.data) }
        return out
    }

    // MARK: Common types

    /// The Flags structure, if present and non-empty.
    public var flags: AdvertisingFlags? {
        first(.flags)?.first.map(AdvertisingFlags.init(rawValue:))
    }

    /// The complete local name (AD type 0x09), decoded as UTF-8 (invalid bytes become U+FFFD).
    public var completeLocalName: String? {
        first(.completeLocalName).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The shortened local name (AD type 0x08).
    public var shortenedLocalName: String? {
        first(.shortenedLocalName).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The complete local name, else the shortened one.
    public var localName: String? {
        completeLocalName ?? shortenedLocalName
    }

    /// 16-bit service UUIDs from both the complete and the incomplete lists, in order.
    public var serviceUUIDs16: [UInt16] {
        var out: [UInt16] = []
        for structure in self
        where structure.type == .completeServiceUUIDs16 || structure.type == .incompleteServiceUUIDs16 {
            var reader = ByteReader(structure.data)
            while let uuid = reader.readUInt16LE() { out.append(uuid) }
        }
        return out
    }

    /// 32-bit service UUIDs from both the complete and the incomplete lists, in order.
    public var serviceUUIDs32: [UInt32] {
        var out: [UInt32] = []
        for structure in self
        where structure.type == .completeServiceUUIDs32 || structure.type == .incompleteServiceUUIDs32 {
            var reader = ByteReader(structure.data)
            while let uuid = reader.readUInt32LE() { out.append(uuid) }
        }
        return out
    }

    /// 128-bit service UUIDs from both lists. AD carries them little-endian; these are the usual
    /// big-endian form (`0000feaa-0000-1000-8000-00805f9b34fb` prints as people write it).
    public var serviceUUIDs128: [BeaconUUID] {
        var out: [BeaconUUID] = []
        for structure in self
        where structure.type == .completeServiceUUIDs128 || structure.type == .incompleteServiceUUIDs128 {
            var reader = ByteReader(structure.data)
            while let chunk = reader.readBytes(16), let uuid = BeaconUUID(bytes: chunk.reversed()) {
                out.append(uuid)
            }
        }
        return out
    }

    /// Every 16-bit-UUID Service Data structure, in order (structures shorter than a UUID are skipped).
    public var serviceData: [ServiceData] {
        var out: [ServiceData] = []
        for structure in self where structure.type == .serviceData16 {
            if let data = ServiceData(structureData: structure.data) { out.append(data) }
        }
        return out
    }

    /// The first Service Data for the 16-bit `uuid`.
    public func serviceData(for uuid: UInt16) -> ServiceData? {
        for structure in self where structure.type == .serviceData16 {
            if let data = ServiceData(structureData: structure.data), data.uuid == uuid { return data }
        }
        return nil
    }

    /// Every Manufacturer Specific Data structure, in order (ones shorter than a company id are skipped).
    public var manufacturerData: [ManufacturerData] {
        var out: [ManufacturerData] = []
        for structure in self where structure.type == .manufacturerSpecificData {
            if let data = ManufacturerData(structureData: structure.data) { out.append(data) }
        }
        return out
    }

    /// The TX Power Level structure: the transmitted power in dBm (not a 1 m reference).
    public var txPowerLevel: Int8? {
        first(.txPowerLevel)?.first.map { Int8(bitPattern: $0) }
    }

    /// The Appearance structure (a GAP appearance value, little-endian).
    public var appearance: UInt16? {
        guard let data = first(.appearance) else { return nil }
        var reader = ByteReader(data)
        return reader.readUInt16LE()
    }
}
