/// What kind of advertising PDU a report describes.
///
/// Two encodings exist: the legacy LE Advertising Report's enumeration (0 `ADV_IND` … 4
/// `SCAN_RSP`) and the extended report's bit field (bit 0 connectable, 1 scannable, 2 directed,
/// 3 scan response, 4 legacy PDU, 5–6 data status). The raw value is kept as it came; the
/// properties read the same for both.
public struct AdvertisingEventType: Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as the report carried it (u8 widened, or the extended u16).
    public let rawValue: UInt16
    /// True when the value came from an extended report (subevent 0x0D) and is a bit field.
    public let isExtendedEncoding: Bool

    /// A legacy report's event type (0…4; other values are reserved and read as nothing set).
    public static func legacyReport(_ value: UInt8) -> AdvertisingEventType {
        AdvertisingEventType(rawValue: UInt16(value), isExtendedEncoding: false)
    }

    /// An extended report's event type bit field.
    public static func extendedReport(_ value: UInt16) -> AdvertisingEventType {
        AdvertisingEventType(rawValue: value, isExtendedEncoding: true)
    }

    /// Creates an event type from its raw value and which encoding it is in.
    public init(rawValue: UInt16, isExtendedEncoding: Bool) {
        self.rawValue = rawValue
        self.isExtendedEncoding = isExtendedEncoding
    }

    /// The extended bit field equivalent (without data status). A legacy `SCAN_RSP` maps to "scan
    /// response to `ADV_SCAN_IND`": the legacy report does not say whether the advertiser was
    /// connectable, so we do not claim it.
    public var properties: UInt16 {
        guard !isExtendedEncoding else { return rawValue & 0x1F }
        switch rawValue {
        case 0: return 0x13  // ADV_IND
        case 1: return 0x15  // ADV_DIRECT_IND
        case 2: return 0x12  // ADV_SCAN_IND
        case 3: return 0x10  // ADV_NONCONN_IND
        case 4: return 0x1A  // SCAN_RSP
        default: return 0x10  // reserved: a legacy PDU, nothing more is known
        }
    }

    /// Whether the advertiser accepts connections (`ADV_IND`, `ADV_DIRECT_IND`, or the extended bit 0).
    public var isConnectable: Bool { properties & 0x01 != 0 }
    /// Whether the advertiser answers scan requests.
    public var isScannable: Bool { properties & 0x02 != 0 }
    /// Whether the advertisement is directed at one device.
    public var isDirected: Bool { properties & 0x04 != 0 }
    /// Whether the report is a scan response rather than an advertisement.
    public var isScanResponse: Bool { properties & 0x08 != 0 }
    /// The advertiser used a legacy PDU (always, for legacy reports).
    public var isLegacy: Bool { properties & 0x10 != 0 }

    /// An extended report's data status bits; legacy reports are always complete.
    public var dataStatus: AdvertisingDataStatus {
        isExtendedEncoding ? AdvertisingDataStatus(bits: rawValue >> 5) : .complete
    }

    /// A stable lowercase name for output: `adv_ind`, `adv_direct_ind`, `adv_scan_ind`,
    /// `adv_nonconn_ind`, `scan_rsp` for legacy PDUs (from either report kind); for extended PDUs
    /// `ext_adv` or `ext_scan_rsp` followed by `_connectable`, `_scannable`, `_directed` as set
    /// (and `_legacy` for a legacy PDU combination the spec does not define); `reserved_0x..` for a
    /// legacy report's reserved values.
    public var name: String {
        if !isExtendedEncoding && rawValue > 4 {
            return "reserved_0x" + HexDigits.string([UInt8(truncatingIfNeeded: rawValue)])
        }
        if isLegacy {
            switch properties {
            case 0x13: return "adv_ind"
            case 0x15: return "adv_direct_ind"
            case 0x12: return "adv_scan_ind"
            case 0x10: return "adv_nonconn_ind"
            case 0x1A, 0x1B: return "scan_rsp"
            default: break  // a combination the spec does not allow; name it by its bits
            }
        }
        var name = isScanResponse ? "ext_scan_rsp" : "ext_adv"
        if isConnectable { name += "_connectable" }
        if isScannable { name += "_scannable" }
        if isDirected { name += "_directed" }
        if isLegacy { name += "_legacy" }
        return name
    }

    /// The stable name, as `name`.
    public var description: String { name }
}
