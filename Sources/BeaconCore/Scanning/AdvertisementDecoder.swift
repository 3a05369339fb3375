/// One advertising report, reassembled if it came in fragments, with the beacon it carries.
public struct DecodedAdvertisement: Sendable {
    /// When the report was received.
    public var time: Instant
    /// The report, whole.
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
    /// Events that could not be decoded, since the decoder was made.
    public private(set) var malformedEventCount = 0
    /// Why the last malformed event could not be decoded.
    public private(set) var lastError: HCIEventError?

    /// Creates a decoder with nothing in progress.
    public init() {}

    /// Advertising reports fragmented and lost before completion (extended reports only).
    public var droppedFragmentCount: Int { reassembler.droppedFragmentCount + reassembler.evictedCount }

    /// Calls `body` for each complete advertising report in one event packet (code, length,
    /// parameters — no H4 indicator). Other events are ignored.
    public mutating func decode(eventPacket packet: ArraySlice<UInt8>, at time: Instant, _ body: (DecodedAdvertisement) -> Void) {
        // Legacy reports are always complete, so with no fragments in progress one needs no
        // reassembler; anything else (and anything malformed) takes the general path below.
        if reassembler.isIdle, Self.decodeSingleLegacyReport(packet, at: time, body) { return }
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

    /// The common event — an LE Advertising Report carrying one well-formed report (every report
    /// of the recorded captures) — decoded straight from the packet's bytes: the beacon is read in
    /// place and the report's data is the one slice made, so a report costs one retain and one
    /// release of the packet's storage instead of one per copy. Returns true, having called
    /// nothing, for an event that is not an LE Meta event at all; false, having called nothing,
    /// for any other event, which `HCIEvent.forEachAdvertisingReport` then validates and reports
    /// exactly as before.
    @inline(__always)
    private static func decodeSingleLegacyReport(
        _ packet: ArraySlice<UInt8>, at time: Instant, _ body: (DecodedAdvertisement) -> Void
    ) -> Bool {
        packet.withUnsafeBufferPointer { bytes in
            // 3e <length> 02 01 | event type, address type, address 6, data length | data | rssi
            let count = bytes.count
            // Not an LE Meta event (command completes, completed packets — half the events of a
            // capture): no advertising report, nothing to check, as the general path would find.
            if count < 3 || bytes[0] != HCIEvent.leMetaCode { return true }
            guard count >= 14, Int(bytes[1]) == count - 2,
                bytes[2] == HCIEvent.leAdvertisingReportSubevent, bytes[3] == 1
            else { return false }
            let length = Int(bytes[12])
            guard count == 14 + length else { return false }
            let beacon = BeaconDecoder.decode(
                bytes, from: 13, to: 13 + length, storage: packet, storageOffset: packet.startIndex)
            let rssi = bytes[13 + length]
            let s = packet.startIndex
            body(
                DecodedAdvertisement(
                    time: time,
                    report: AdvertisingReport(
                        address: HCIEvent.address(in: bytes, at: 6),
                        addressType: AdvertisingAddressType(rawValue: bytes[5]),
                        eventType: .legacyReport(bytes[4]),
                        rssi: rssi == 127 ? nil : Int8(bitPattern: rssi),
                        data: packet[(s + 13)..<(s + 13 + length)],
                        dataStatus: .complete),
                    beacon: beacon))
            return true
        }
    }
}
