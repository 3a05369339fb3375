/// One advertising report, reassembled if it came in fragments, with the beacon it carries.
public struct DecodedAdvertisement: Sendable {
    public var time: Instant
    public var report: AdvertisingReport
    /// Nil when the data carries no beacon format we know; its id is then `mac-<address>`.
    public var beacon: Beacon?

    /// The canonical id: the advertised identity, or the address for anything else.
    public var beaconID: BeaconID {
        beacon?.id(address: report.address) ?? .mac(report.address)
    }
}

/// HCI event packets in, decoded advertisements out: the step every source shares (capture replay,
/// serial line, socket, simulator). Malformed events are counted and the last error kept, never
/// thrown: one bad packet must not stop a scanner.
public struct AdvertisementDecoder: Sendable {
    private var reassembler = ExtendedAdvertisingReassembler()
    public private(set) var malformedEventCount = 0
    public private(set) var lastError: HCIEventError?

    public init() {}

    /// Advertising reports fragmented and lost before completion (extended reports only).
    public var droppedFragmentCount: Int { reassembler.droppedFragmentCount + reassembler.evictedCount }

    /// Calls `body` for each complete advertising report in one event packet (code, length,
    /// parameters — no H4 indicator). Other events are ignored.
    public mutating func decode(eventPacket packet: ArraySlice<UInt8>, at time: Instant, _ body: (DecodedAdvertisement) -> Void) {
        do {
            try HCIEvent.forEachAdvertisingReport(inEvent: packet) { report in
                // The common case inline, the report moved along rather than copied through an
                // optional: each copy of a report is a retain and a release of the packet's
                // storage, which were half the cost of a report (presence-bench speed).
                if reassembler.isIdle && report.dataStatus != .incomplete {
                    let beacon = BeaconDecoder.decode(advertisingData: report.data)
                    body(DecodedAdvertisement(time: time, report: consume report, beacon: beacon))
                    return
                }
                guard let whole = reassembler.reassemble(report) else { return }
                body(DecodedAdvertisement(time: time, report: whole, beacon: BeaconDecoder.decode(advertisingData: whole.data)))
            }
        } catch {
            malformedEventCount += 1
            lastError = error
        }
    }
}
