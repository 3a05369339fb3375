import ConfigFile

/// libFuzzer entry: any bytes as a YAML configuration file (etc/*.yaml), read by `YAMLReader`
/// (libyaml's parser and the tree built from its events).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigYAML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        if let document = try YAMLReader.parse(text) { _ = document.mapping?.count }
    } catch {
        _ = error.description
    }
    return 0
}
