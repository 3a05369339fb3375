import BeaconCore

/// libFuzzer entry: any bytes as a YAML configuration file (etc/*.yaml), read by `YAMLParser`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigYAML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        if let document = try YAMLParser.parse(text) { _ = document.mapping?.count }
    } catch {
        _ = error.description
    }
    return 0
}
