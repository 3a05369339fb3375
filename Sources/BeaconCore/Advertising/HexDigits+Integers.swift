extension HexDigits {
    /// The low `byteCount` bytes of `value` as lowercase hex, most significant first, so that ids
    /// held in integers (Eddystone instance, EID) format without building a byte array first.
    public static func string(_ value: UInt64, byteCount: Int) -> String {
        let count = max(0, min(byteCount, 8))
        var out = ""
        out.reserveCapacity(2 * count)
        for index in 0..<count {
            append(UInt8(truncatingIfNeeded: value >> UInt64(8 * (count - 1 - index))), to: &out)
        }
        return out
    }
}
