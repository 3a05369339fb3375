import BeaconCore

/// libFuzzer entry: any bytes as a btsnoop file, fed in two chunks, every record through the
/// advertisement decoder. Built only with `swift build --sanitize=fuzzer` (see .ci/fuzz).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBtsnoop(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var parser = BtsnoopParser()
    var decoder = AdvertisementDecoder()
    let split = bytes.count / 3
    parser.append(contentsOf: bytes[..<split])
    for chunk in [bytes[split...], []] {
        parser.append(contentsOf: chunk)
        while let record = try? parser.nextRecord() {
            if record.packetType == .event {
                decoder.decode(eventPacket: record.packet, at: record.timestamp) { _ = $0.beaconID }
            }
        }
    }
    return 0
}
