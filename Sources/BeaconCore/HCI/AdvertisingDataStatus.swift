/// Whether a report carries all of an advertisement's data (extended reports, event type bits 5–6).
public enum AdvertisingDataStatus: Sendable, Hashable, CustomStringConvertible {
    /// All the data (0b00); legacy reports are always complete.
    case complete
    /// A fragment; more reports with the rest follow (0b01).
    case incomplete
    /// The controller gave up; the data stops short (0b10, and the reserved 0b11).
    case truncated

    /// From the two-bit field.
    public init(bits: UInt16) {
        switch bits & 0b11 {
        case 0b00: self = .complete
        case 0b01: self = .incomplete
        default: self = .truncated
        }
    }

    var bits: UInt16 {
        switch self {
        case .complete: return 0b00
        case .incomplete: return 0b01
        case .truncated: return 0b10
        }
    }

    /// `complete`, `incomplete` or `truncated`.
    public var description: String {
        switch self {
        case .complete: return "complete"
        case .incomplete: return "incomplete"
        case .truncated: return "truncated"
        }
    }
}
