extension HCIEvent {
    /// Calls `body` with each advertising report in an event packet (code, length, parameters),
    /// without allocating: each report's `data` is a slice of `packet`. `body` owns the report, so
    /// passing it on costs no further retain of the packet's storage.
    ///
    /// Returns how many reports there were; 0 for events that are not advertising reports. The
    /// whole event is validated before the first call, so a malformed event yields no report at all.
    ///
    /// Legacy layout: Core Vol 4 Part E §5.2 says arrayed parameters are interleaved unless noted
    /// otherwise (`Event_Type[0], Address_Type[0], …, RSSI[0], Event_Type[1], …`), and §7.7.65.2
    /// notes nothing otherwise; Linux, BlueZ and Android read it so. Some embedded stacks read the
    /// arrays one after another instead (all event types, then all address types, …). With more
    /// than one report we take the interleaved reading when it fits the length exactly, else the
    /// column reading when that does, else throw. With one report (all real captures here) the two
    /// are the same bytes.
    @discardableResult
    public static func forEachAdvertisingReport(
        inEvent packet: ArraySlice<UInt8>, _ body: (consuming AdvertisingReport) -> Void
    ) throws(HCIEventError) -> Int {
        let s = packet.startIndex
        guard packet.count >= 3, packet[s] == leMetaCode else { return 0 }
        try checkParameterLength(of: packet)
        // Reads go through a buffer pointer: slicing per field would cost a retain and release
        // each, and this is the hot path. Every index is checked against `bytes.count` first.
        let result: Result<Int, HCIEventError> = packet.withUnsafeBufferPointer { bytes in
            switch bytes[2] {
            case leAdvertisingReportSubevent: return forEachLegacyReport(bytes, packet, body)
            case leExtendedAdvertisingReportSubevent: return forEachExtendedReport(bytes, packet, body)
            default: return .success(0)
            }
        }
        return try result.get()
    }

    /// `forEachAdvertisingReport(inEvent:_:)` over a whole array.
    @discardableResult
    public static func forEachAdvertisingReport(
        inEvent packet: [UInt8], _ body: (consuming AdvertisingReport) -> Void
    ) throws(HCIEventError) -> Int {
        try forEachAdvertisingReport(inEvent: packet[...], body)
    }

    /// The advertising reports in an event packet; empty for other events.
    public static func advertisingReports(inEvent packet: ArraySlice<UInt8>) throws(HCIEventError) -> [AdvertisingReport] {
        var reports: [AdvertisingReport] = []
        try forEachAdvertisingReport(inEvent: packet) { reports.append($0) }
        return reports
    }

    // MARK: - Legacy (subevent 0x02)

    private static let legacyContext = "le_advertising_report"

    /// `bytes` is `packet`'s storage; offsets below count from the event code.
    private static func forEachLegacyReport(
        _ bytes: UnsafeBufferPointer<UInt8>, _ packet: ArraySlice<UInt8>, _ body: (consuming AdvertisingReport) -> Void
    ) -> Result<Int, HCIEventError> {
        let end = bytes.count
        guard end >= 4 else {
            return .failure(.truncated(legacyContext, field: "num_reports", at: 3, needs: 1, left: 0))
        }
        let count = Int(bytes[3])
        let base = 4

        // Interleaved (the spec's reading): 9 fixed bytes, data, RSSI per report.
        var problem: HCIEventError? = nil
        var index = base
        for report in 0..<count {
            guard end - index >= 9 else {
                problem = .truncated(
                    legacyContext, field: "report \(report + 1) header", at: index, needs: 9, left: end - index)
                break
            }
            let length = Int(bytes[index + 8])
            guard end - index - 9 >= length + 1 else {
                problem = .truncated(
                    legacyContext, field: "report \(report + 1) data and rssi", at: index + 9,
                    needs: length + 1, left: end - index - 9)
                break
            }
            index += 10 + length
        }
        if problem == nil && index != end {
            problem = HCIEventError(
                context: legacyContext, offset: index, reason: "\(end - index) bytes left over after \(count) reports")
        }
        guard let problem else {
            index = base
            for _ in 0..<count {
                let length = Int(bytes[index + 8])
                body(
                    legacyReport(
                        bytes, packet, eventType: bytes[index], addressType: bytes[index + 1], addressAt: index + 2,
                        dataAt: index + 9, length: length, rssi: bytes[index + 9 + length]))
                index += 10 + length
            }
            return .success(count)
        }

        // Arrays one after another; only when more than one report makes it differ.
        if count > 1, end - base >= count * 9 {
            var total = count * 10
            for report in 0..<count { total += Int(bytes[base + count * 8 + report]) }
            if total == end - base {
                var dataIndex = base + count * 9
                for report in 0..<count {
                    let length = Int(bytes[base + count * 8 + report])
                    body(
                        legacyReport(
                            bytes, packet, eventType: bytes[base + report], addressType: bytes[base + count + report],
                            addressAt: base + count * 2 + report * 6, dataAt: dataIndex, length: length,
                            rssi: bytes[end - count + report]))
                    dataIndex += length
                }
                return .success(count)
            }
        }
        return .failure(problem)
    }

    @inline(__always)
    private static func legacyReport(
        _ bytes: UnsafeBufferPointer<UInt8>, _ packet: ArraySlice<UInt8>, eventType: UInt8, addressType: UInt8,
        addressAt: Int, dataAt: Int, length: Int, rssi: UInt8
    ) -> AdvertisingReport {
        let s = packet.startIndex
        return AdvertisingReport(
            address: address(in: bytes, at: addressAt),
            addressType: AdvertisingAddressType(rawValue: addressType),
            eventType: .legacyReport(eventType),
            rssi: rssi == 127 ? nil : Int8(bitPattern: rssi),
            data: packet[(s + dataAt)..<(s + dataAt + length)],
            dataStatus: .complete)
    }

    // MARK: - Extended (subevent 0x0D)

    private static let extendedContext = "le_extended_advertising_report"
    /// Bytes of one extended report before its data.
    private static let extendedFixedLength = 24

    private static func forEachExtendedReport(
        _ bytes: UnsafeBufferPointer<UInt8>, _ packet: ArraySlice<UInt8>, _ body: (consuming AdvertisingReport) -> Void
    ) -> Result<Int, HCIEventError> {
        let end = bytes.count
        guard end >= 4 else {
            return .failure(.truncated(extendedContext, field: "num_reports", at: 3, needs: 1, left: 0))
        }
        let count = Int(bytes[3])
        let base = 4
        var index = base
        for report in 0..<count {
            guard end - index >= extendedFixedLength else {
                return .failure(
                    .truncated(
                        extendedContext, field: "report \(report + 1) header", at: index,
                        needs: extendedFixedLength, left: end - index))
            }
            let length = Int(bytes[index + 23])
            guard end - index - extendedFixedLength >= length else {
                return .failure(
                    .truncated(
                        extendedContext, field: "report \(report + 1) data", at: index + extendedFixedLength,
                        needs: length, left: end - index - extendedFixedLength))
            }
            index += extendedFixedLength + length
        }
        guard index == end else {
            return .failure(
                HCIEventError(
                    context: extendedContext, offset: index,
                    reason: "\(end - index) bytes left over after \(count) reports"))
        }
        let s = packet.startIndex
        index = base
        for _ in 0..<count {
            let eventType = AdvertisingEventType.extendedReport(UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
            let secondary = bytes[index + 10]
            let sid = bytes[index + 11]
            let txPower = bytes[index + 12]
            let rssi = bytes[index + 13]
            let interval = UInt16(bytes[index + 14]) | UInt16(bytes[index + 15]) << 8
            let length = Int(bytes[index + 23])
            let dataStart = index + extendedFixedLength
            let directed = eventType.isDirected
            body(
                AdvertisingReport(
                    address: address(in: bytes, at: index + 3),
                    addressType: AdvertisingAddressType(rawValue: bytes[index + 2]),
                    eventType: eventType,
                    rssi: rssi == 127 ? nil : Int8(bitPattern: rssi),
                    txPower: txPower == 127 ? nil : Int8(bitPattern: txPower),
                    primaryPHY: AdvertisingPHY(rawValue: bytes[index + 9]),
                    secondaryPHY: secondary == 0 ? nil : AdvertisingPHY(rawValue: secondary),
                    advertisingSID: sid == 0xFF ? nil : sid,
                    periodicAdvertisingInterval: interval == 0 ? nil : interval,
                    directAddress: directed ? address(in: bytes, at: index + 17) : nil,
                    directAddressType: directed ? AdvertisingAddressType(rawValue: bytes[index + 16]) : nil,
                    data: packet[(s + dataStart)..<(s + dataStart + length)],
                    dataStatus: eventType.dataStatus))
            index = dataStart + length
        }
        return .success(count)
    }

    /// Six little-endian address bytes at `index` (already checked to be in `bytes`).
    @inline(__always)
    static func address(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> BluetoothAddress {
        var value: UInt64 = 0
        for k in 0..<6 { value |= UInt64(bytes[index + k]) << UInt64(8 * k) }
        return BluetoothAddress(rawValue: value)
    }
}
