/// A Service Data structure for a 16-bit service UUID (AD type 0x16): the UUID, then the service's bytes.
public struct ServiceData: Hashable, Sendable {
    /// The 16-bit service UUID, carried little-endian (Eddystone is 0xFEAA).
    public let uuid: UInt16
    /// The bytes after the UUID, sharing storage with the report.
    public let payload: ArraySlice<UInt8>

    /// Creates service data from its 16-bit service UUID and the bytes after it.
    public init(uuid: UInt16, payload: ArraySlice<UInt8>) {
        self.uuid = uuid
        self.payload = payload
    }

    /// Reads the structure's data (after the type byte); nil when shorter than the UUID.
    public init?(structureData data: ArraySlice<UInt8>) {
        var reader = ByteReader(data)
        guard let uuid = reader.readUInt16LE() else { return nil }
        self.init(uuid: uuid, payload: reader.readRest())
    }

    /// The Eddystone service UUID.
    public static let eddystone: UInt16 = 0xFEAA
}
