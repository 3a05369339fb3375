import BeaconCore

/// The lines `presence-agent scan` prints: one per advertising report, as text for people or as
/// one JSON object per line (`--json`) using docs/MQTT.md's measurement field names where they apply.
public enum ScanLineFormatter {
    /// `timestamp`, `address`, `addressType`, `eventType`, `rssi`, then `format` and `beacon` and the
    /// format's own fields (docs/MQTT.md names: `uuid`, `major`, `minor`, `measuredPower`, …), then what
    /// only some reports carry: `reportTxPower`, PHYs and SID of extended reports, `dataStatus` when
    /// not complete, and the advertised `localName`; `device`, the known device it comes from
    /// (`scan --config`/`--state-dir`), last.
    public static func json(_ advertisement: DecodedAdvertisement, device: String? = nil) -> String {
        let report = advertisement.report
        var json = JSONObjectWriter()
        json.add("timestamp", ISO8601Timestamp.string(from: advertisement.time))
        json.add("address", report.address.description)
        json.add("addressType", report.addressType.description)
        json.add("eventType", report.eventType.name)
        if let rssi = report.rssi { json.add("rssi", Int(rssi)) } else { json.addNull("rssi") }
        if let beacon = advertisement.beacon {
            for field in beacon.fields(address: report.address) { add(field, to: &json) }
        } else {
            json.add("beacon", advertisement.beaconID.rawValue)
        }
        if let txPower = report.txPower { json.add("reportTxPower", Int(txPower)) }
        if !report.eventType.isLegacy {
            json.add("primaryPHY", report.primaryPHY.description)
            if let secondary = report.secondaryPHY { json.add("secondaryPHY", secondary.description) }
            if let sid = report.advertisingSID { json.add("sid", Int(sid)) }
        }
        if report.dataStatus != .complete { json.add("dataStatus", report.dataStatus.description) }
        if let name = AdvertisingData(report.data).localName { json.add("localName", name) }
        if let device { json.add("device", device) }
        return json.json
    }

    /// `2021-02-01T03:28:00.181Z a4:c1:38:bf:6f:ab public scan_rsp -49 ibeacon-…-20594-62207 measuredPower=-62`
    /// (then `device=alice-phone` for a known device).
    public static func text(_ advertisement: DecodedAdvertisement, device: String? = nil) -> String {
        let report = advertisement.report
        var parts = [
            ISO8601Timestamp.string(from: advertisement.time),
            report.address.description,
            report.addressType.description,
            report.eventType.name,
            report.rssi.map { "\($0)" } ?? "rssi=n/a",
            advertisement.beaconID.rawValue,
        ]
        if let beacon = advertisement.beacon {
            parts += beacon.formatFields.filter { !["uuid", "major", "minor"].contains($0.key) }.map(\.description)
        } else if let name = AdvertisingData(report.data).localName {
            parts.append("localName=\(name)")
        }
        if let device { parts.append("device=\(device)") }
        return parts.joined(separator: " ")
    }

    private static func add(_ field: BeaconField, to json: inout JSONObjectWriter) {
        switch field.value {
        case .string(let value): json.add(field.key, value)
        case .int(let value): json.add(field.key, value)
        case .double(let value): json.add(field.key, value, decimals: 3)
        case .bool(let value): json.add(field.key, value)
        }
    }
}
