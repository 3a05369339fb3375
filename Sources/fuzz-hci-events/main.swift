import BeaconCore

/// libFuzzer entry: any bytes as an H4 stream, every packet through the event decoder and the
/// advertisement decoder. Built only with `swift build -sanitize=fuzzer` (see .ci/fuzz).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCIEvents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var deframer = H4Deframer(maximumPayloadLength: 1024)
    var decoder = AdvertisementDecoder()
    _ = deframer.append(contentsOf: bytes)
    while let packet = deframer.nextPacket() {
        _ = try? HCIEvent(decoding: packet.bytes)
        decoder.decode(eventPacket: packet.bytes, at: Instant(seconds: 0)) { advertisement in
            _ = advertisement.beaconID
            _ = advertisement.beacon?.formatFields
        }
    }
    return 0
}
