/// Joins extended advertising report fragments back into one report.
///
/// A controller splits long extended advertising data over several reports: each fragment but
/// the last has data status "incomplete, more to come"; the last says complete or truncated.
/// Fragments of different advertisers may interleave, so pending data is kept per
/// (address, address type, advertising SID). Complete single reports pass through untouched (no
/// copy); only fragments are copied into a buffer.
///
/// Bounded: at most `maximumDataLength` bytes per advertisement (more is cut off and the result
/// flagged truncated) and at most `maximumPendingCount` advertisements in progress — a new one
/// evicts the oldest. The evicted advertisement's later fragments are dropped (its start is gone,
/// so they could only mislead), up to and including its last one.
public struct ExtendedAdvertisingReassembler: Sendable {
    /// The most data one advertisement can carry (Core Vol 6 Part B 2.3.4.9: 1650 bytes).
    public static let maximumDataLength = 1650

    /// The most advertisements kept in progress at once; a new one beyond it evicts the oldest.
    public let maximumPendingCount: Int
    /// Advertisements dropped because newer ones needed their place.
    public private(set) var evictedCount = 0
    /// Fragments dropped because their advertisement had been evicted.
    public private(set) var droppedFragmentCount = 0

    private struct Key: Hashable, Sendable {
        var address: BluetoothAddress
        var addressType: AdvertisingAddressType
        var sid: UInt8?
    }

    private struct Pending: Sendable {
        var key: Key
        /// The first fragment: its fields (PHYs, tx power, RSSI, …) describe the result.
        var first: AdvertisingReport
        var data: [UInt8]
        var overflowed: Bool
    }

    /// In arrival order, oldest first; small, so a linear search beats hashing.
    private var pending: [Pending] = []
    /// Advertisements evicted while incomplete, whose remaining fragments are to be dropped.
    private var evicted: [Key] = []

    /// Creates a reassembler that keeps at most `maximumPendingCount` advertisements in progress.
    public init(maximumPendingCount: Int = 16) {
        self.maximumPendingCount = max(1, maximumPendingCount)
    }

    /// Advertisements waiting for more fragments.
    public var pendingCount: Int { pending.count }

    /// True when nothing is in progress; kept up to date so the common case can be inlined.
    @usableFromInline
    internal private(set) var isIdle = true

    /// Offers one report. Returns the report to pass on — as it came, or reassembled from its
    /// fragments with data status complete or truncated — or nil while more fragments are due.
    @inlinable
    public mutating func accept(_ report: AdvertisingReport) -> AdvertisingReport? {
        // The common case — a complete report, nothing in progress — costs two checks, in the caller.
        if isIdle && report.dataStatus != .incomplete { return report }
        return reassemble(report)
    }

    @usableFromInline
    internal mutating func reassemble(_ report: AdvertisingReport) -> AdvertisingReport? {
        defer { isIdle = pending.isEmpty && evicted.isEmpty }
        let key = Key(address: report.address, addressType: report.addressType, sid: report.advertisingSID)
        let slot = pending.firstIndex { $0.key == key }

        guard let slot else {
            if let gone = evicted.firstIndex(of: key) {
                droppedFragmentCount += 1
                if report.dataStatus != .incomplete { evicted.remove(at: gone) }
                return nil
            }
            guard report.dataStatus == .incomplete else { return report }
            if pending.count >= maximumPendingCount {
                let oldest = pending.removeFirst()
                evictedCount += 1
                if evicted.count >= maximumPendingCount { evicted.removeFirst() }
                evicted.append(oldest.key)
            }
            var first = report
            first.data = []  // the bytes are copied below; do not keep the event's storage alive
            var entry = Pending(key: key, first: first, data: [], overflowed: false)
            entry.data.reserveCapacity(min(Self.maximumDataLength, report.data.count * 4))
            Self.append(report.data, to: &entry)
            pending.append(entry)
            return nil
        }

        Self.append(report.data, to: &pending[slot])
        guard report.dataStatus != .incomplete else { return nil }

        let entry = pending.remove(at: slot)
        let status: AdvertisingDataStatus =
            entry.overflowed || report.dataStatus == .truncated ? .truncated : .complete
        var result = entry.first
        result.data = entry.data[...]
        result.dataStatus = status
        if result.eventType.isExtendedEncoding {
            let raw = result.eventType.rawValue & ~0x60 | status.bits << 5
            result.eventType = .extendedReport(raw)
        }
        return result
    }

    /// Drops everything in progress (for example when scanning restarts).
    public mutating func reset() {
        pending.removeAll()
        evicted.removeAll()
        isIdle = true
    }

    private static func append(_ bytes: ArraySlice<UInt8>, to entry: inout Pending) {
        let room = maximumDataLength - entry.data.count
        if bytes.count > room {
            entry.overflowed = true
            entry.data.append(contentsOf: bytes.prefix(max(0, room)))
        } else {
            entry.data.append(contentsOf: bytes)
        }
    }
}
