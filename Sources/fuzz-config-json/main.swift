import BeaconCore

/// libFuzzer entry: any bytes as each configuration message (regions, known beacons, node
/// settings), and the status that would answer them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        _ = try RegionsConfig.parse(bytes)
    } catch {
        _ = ConfigStatus.rejected(topic: "presence/config/regions", error: error, keptRevision: 1).jsonText
    }
    _ = try? KnownBeaconsConfig.parse(bytes)
    _ = try? NodeSettings.parse(bytes)
    if let text = String(validating: bytes, as: UTF8.self) {
        _ = BeaconIDSyntax.canonical(text)
        _ = try? BeaconID(parsing: text)
    }
    return 0
}
