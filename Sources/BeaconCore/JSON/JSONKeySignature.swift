/// What `JSONParser.readObject` keeps of each key to find a repeated one without comparing every
/// pair of `String`s (a measurement's 14 keys made about 90 comparisons, issue 38): an FNV-1a
/// hash of the key's bytes when they are plain ASCII, where equal `String`s have equal bytes.
/// A key with an escape or text beyond ASCII may be `==` to a key of other bytes (`"\u212A"`,
/// the Kelvin sign, is `==` to `"K"`): it has no hash and is compared with every key.
struct JSONKeySignature: Equatable {
    /// The hash; 0 for a key without one.
    private var hash: UInt64

    /// The signature of the key whose bytes, between its quotes, are `bytes[range]`.
    init(_ bytes: [UInt8], _ range: Range<Int>) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for index in range {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") || byte >= 0x80 {
                self.hash = 0
                return
            }
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        self.hash = hash == 0 ? 1 : hash
    }

    /// False only when the two keys cannot be equal `String`s.
    func mayEqual(_ other: JSONKeySignature) -> Bool {
        hash == other.hash || hash == 0 || other.hash == 0
    }
}
