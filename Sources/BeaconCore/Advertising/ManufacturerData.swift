/// A Manufacturer Specific Data structure (AD type 0xFF): a company identifier, then the company's bytes.
public struct ManufacturerData: Hashable, Sendable {
    /// The Bluetooth SIG company identifier, carried little-endian (Apple is 0x004C).
    public let companyID: UInt16
    /// The bytes after the company identifier, sharing storage with the report.
    public let payload: ArraySlice<UInt8>

    /// Creates manufacturer data from its company identifier and the bytes after it.
    public init(companyID: UInt16, payload: ArraySlice<UInt8>) {
        self.companyID = companyID
        self.payload = payload
    }

    /// Reads the structure's data (after the type byte); nil when shorter than the company id.
    public init?(structureData data: ArraySlice<UInt8>) {
        var reader = ByteReader(data)
        guard let company = reader.readUInt16LE() else { return nil }
        self.init(companyID: company, payload: reader.readRest())
    }

    /// Apple's company identifier, which iBeacon and Apple's other payloads use.
    public static let apple: UInt16 = 0x004C
}
