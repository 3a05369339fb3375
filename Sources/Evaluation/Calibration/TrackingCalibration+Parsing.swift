import BeaconCore

/// Text parsers for the recorded data sets the calibration reads (data/README.md). They
/// take file contents, so the core does no I/O; malformed lines are skipped, never trapped on.
extension TrackingCalibration {
    /// Splits CSV text into lines of fields (no quoting: none of these files quote).
    static func csvRows(_ text: String) -> [[Substring]] {
        // Split on bytes, not Characters: several times faster, and these files are ASCII.
        text.utf8.split(separator: UInt8(ascii: "\n")).map { line in
            let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            return trimmed.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { Substring($0) }
        }
    }

    /// A static-rssi `.mbd` file: `time,receiver,beacon,rssi` without a header.
    public static func parseStaticSeries(_ text: String) -> RSSISeries {
        var series = RSSISeries(times: [], rssi: [])
        for row in csvRows(text) where row.count >= 4 {
            guard let t = Double(row[0]), let r = Double(row[3]) else { continue }
            series.times.append(t)
            series.rssi.append(r)
        }
        return series
    }

    /// static-rssi `DISTANCES.csv`: file name, receiver and true distance of each series.
    public static func parseStaticDistances(_ text: String) -> [(file: String, receiver: String, distance: Double)] {
        let rows = csvRows(text)
        guard let header = rows.first,
              let file = header.firstIndex(of: "file"), let sensor = header.firstIndex(of: "sensor"),
              let distance = header.firstIndex(of: "dist_m") else { return [] }
        return rows.dropFirst().compactMap { row in
            guard row.count > max(file, sensor, distance), let d = Double(row[distance]) else { return nil }
            return (String(row[file]), String(row[sensor]), d)
        }
    }

    /// A docs/Files.md trace: one series per (node, beacon), in order of first appearance.
    public static func parseTraceSeries(_ text: String) -> [RSSISeries] {
        let rows = csvRows(text)
        guard let header = rows.first,
              let time = header.firstIndex(of: "time"), let node = header.firstIndex(of: "node"),
              let beacon = header.firstIndex(of: "beacon"), let rssi = header.firstIndex(of: "rssi") else { return [] }
        var index: [String: Int] = [:]
        var series: [RSSISeries] = []
        for row in rows.dropFirst() where row.count > max(time, node, beacon, rssi) {
            guard let t = Double(row[time]), let r = Double(row[rssi]) else { continue }
            let key = "\(row[node])\u{0}\(row[beacon])"
            let i: Int
            if let existing = index[key] { i = existing } else {
                i = series.count
                index[key] = i
                series.append(RSSISeries(times: [], rssi: []))
            }
            series[i].times.append(t)
            series[i].rssi.append(r)
        }
        return series
    }

    /// A Herald rssi-vs-distance file: `time,rssi,distance` with time `YYYY-MM-DD HH:MM:SS` (UTC
    /// assumed, whole seconds) and distance in centimetres. Returns seconds since the Unix epoch,
    /// RSSI, and distance in metres.
    public static func parseHerald(_ text: String) -> (times: [Double], rssi: [Double], distances: [Double]) {
        var result: (times: [Double], rssi: [Double], distances: [Double]) = ([], [], [])
        for row in csvRows(text).dropFirst() where row.count >= 3 {
            guard let t = parseDateTime(row[0]), let r = Double(row[1]), let cm = Double(row[2]) else { continue }
            result.times.append(t)
            result.rssi.append(r)
            result.distances.append(cm / 100)
        }
        return result
    }

    /// `YYYY-MM-DD HH:MM:SS` → seconds since 1970-01-01 (proleptic Gregorian, UTC).
    static func parseDateTime(_ text: Substring) -> Double? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" || $0 == "T" })
        guard parts.count == 6 else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == 6 else { return nil }
        let (y, m, d) = (numbers[0], numbers[1], numbers[2])
        guard (1...12).contains(m), (1...31).contains(d) else { return nil }
        // Days from civil (H. Hinnant's algorithm).
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + numbers[3] * 3600 + numbers[4] * 60 + numbers[5])
    }
}
