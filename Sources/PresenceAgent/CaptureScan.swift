import BeaconCore

/// Decodes a btsnoop capture into advertisements, in file order, with the capture's timestamps.
/// Streams: memory stays constant whatever the file's size.
public enum CaptureScan {
    /// Calls `body` for each advertising report in the capture; throws the reader's error (naming
    /// the record and byte offset) for a foreign or damaged file.
    public static func forEachAdvertisement(
        inFile path: String, _ body: (DecodedAdvertisement) -> Void
    ) throws(BtsnoopError) -> AdvertisementDecoder {
        let reader = try BtsnoopFileReader(path: path)
        var decoder = AdvertisementDecoder()
        while let record = try reader.next() {
            guard record.packetType == .event, record.direction == .received else { continue }
            decoder.decode(eventPacket: record.packet, at: record.timestamp, body)
        }
        return decoder
    }
}
