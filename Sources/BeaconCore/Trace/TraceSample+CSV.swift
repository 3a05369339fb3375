extension TraceSample {
    /// The header of docs/Files.md's input format, as `--record` writes it.
    public static let csvHeader = "time,node,room,beacon,rssi,measuredPower"

    /// One row of docs/Files.md's input format: time in seconds with milliseconds, an empty
    /// measuredPower when the beacon advertises none. Ids are topic-safe, so nothing needs quoting.
    public var csvLine: String {
        var line = JSONObjectWriter.number(time.seconds, decimals: 3)
        line += ","
        line += node
        line += ","
        line += room
        line += ","
        line += beacon.rawValue
        line += ","
        line += String(rssi)
        line += ","
        if let measuredPower { line += String(measuredPower) }
        return line
    }
}
