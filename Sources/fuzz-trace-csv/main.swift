import BeaconCore

/// libFuzzer entry: any bytes as a trace file, split into lines and parsed as `replay` does: an
/// input trace, or a recorded one (`proximity` and the published columns and the advert; the seed
/// `recorded-rise` of .ci/fuzz also has an older recording's rise columns), whose values are read back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var splitter = LineSplitter()
    var parser = TraceParser()
    var failed = false
    func take(_ number: Int, _ line: Substring) throws(TraceError) {
        guard !failed else { return }
        do {
            if let recorded = try parser.parse(line: line)?.publication {
                _ = [recorded.rssiFiltered, recorded.distance, recorded.rssi]
            }
        } catch {
            _ = error.description
            failed = true
        }
    }
    do {
        try splitter.feed(bytes, take)
        try splitter.finish(take)
    } catch {
        _ = error.description
    }
    return 0
}
