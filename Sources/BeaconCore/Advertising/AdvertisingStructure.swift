/// One length/type/data structure of advertising data.
///
/// `data` shares storage with the report's bytes: iterating structures never copies.
public struct AdvertisingStructure: Hashable, Sendable {
    /// What the data is (flags, a name, manufacturer data, …).
    public let type: AdvertisingDataType
    /// The bytes after the type byte.
    public let data: ArraySlice<UInt8>
    /// Offset of this structure's length byte from the start of the advertising data.
    public let offset: Int

    /// Creates a structure of `type` whose data starts at `offset` in the advertising data.
    public init(type: AdvertisingDataType, data: ArraySlice<UInt8>, offset: Int) {
        self.type = type
        self.data = data
        self.offset = offset
    }
}
