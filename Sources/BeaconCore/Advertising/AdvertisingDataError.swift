/// Why advertising data is malformed, with the byte offset (from the start of the advertising data)
/// of the structure that is wrong. Iteration stops there; structures before it remain usable.
public struct AdvertisingDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the data.
    public enum Code: String, Hashable, Sendable {
        /// A length byte claims more bytes than the advertising data has left.
        case structureRunsPastEnd
    }

    /// What is wrong.
    public let code: Code
    /// Offset of the offending length byte.
    public let offset: Int
    /// The length the structure claims (type byte plus data).
    public let declaredLength: Int
    /// Bytes actually left after the length byte.
    public let availableLength: Int

    /// Creates an error for the structure at `offset`.
    public init(code: Code, offset: Int, declaredLength: Int, availableLength: Int) {
        self.code = code
        self.offset = offset
        self.declaredLength = declaredLength
        self.availableLength = availableLength
    }

    /// The offset, the claimed length and the bytes left, as one line.
    public var description: String {
        "advertising data byte \(offset): structure length \(declaredLength) runs past the end (\(availableLength) bytes left)"
    }
}
