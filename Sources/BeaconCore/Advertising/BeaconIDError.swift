/// Why a string is not a canonical beacon id, naming the part that is wrong.
///
/// `description` reads as a config error once the caller puts the field path in front:
/// `beacons[2].beacon: 'ibeacon-abc-1-2': uuid 'abc' is not a lowercase 8-4-4-4-12 UUID`.
public struct BeaconIDError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which rule of the canonical form the text breaks.
    public enum Code: String, Hashable, Sendable {
        /// The part before the first `-` is not `ibeacon`, `altbeacon`, `eddystone` or `mac`.
        case unknownKind
        /// Upper-case letters: canonical ids (and so topics) are lower-case.
        case notLowercase
        /// The parts are not the ones the kind needs (missing, extra, or out of place).
        case wrongShape
        /// The iBeacon UUID is not 8-4-4-4-12 lower-case hex.
        case malformedUUID
        /// Major or minor is not a decimal 0…65535 written without leading zeros.
        case malformedNumber
        /// A hex part has the wrong digits or the wrong count.
        case malformedHex
    }

    /// Which rule the text breaks.
    public let code: Code
    /// The whole string that was parsed.
    public let text: String
    /// The part that is wrong: `kind`, `uuid`, `major`, `minor`, `id`, `namespace`, `instance`, `address`.
    public let field: String
    /// What is wrong, for people.
    public let message: String

    /// Creates an error for `text`, naming the wrong part (`field`) and saying why (`message`).
    public init(code: Code, text: String, field: String, message: String) {
        self.code = code
        self.text = text
        self.field = field
        self.message = message
    }

    /// The text quoted, then what is wrong with it.
    public var description: String { "'\(text)': \(message)" }
}
