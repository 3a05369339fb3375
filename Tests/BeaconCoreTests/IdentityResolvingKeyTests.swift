import IdentityCrypto
import Testing
@testable import BeaconCore

/// Keys of phones and watches: the forms `config/beacons` takes, the Core spec's sample, the
/// canonical id, and errors that never show the key.
@Suite struct IdentityResolvingKeyTests {
    /// The Core spec's sample (Vol 3 Part H, Appendix D.7): IRK, prand 708194 → hash 0dfbaa.
    static let specKey = "ec0234a357c8ad05341010a60a397d9b"
    /// The same 16 bytes as an Apple keychain shows them: reversed, base64.
    static let specKeyKeychain = "m305CqYQEDQFrchXozQC7A=="
    let crypto = LibCrypto()

    @Test func theSpecSampleResolves() throws {
        let key = try IdentityResolvingKey(parsing: Self.specKey)
        #expect(key.specOrderHex == Self.specKey)
        let ah = crypto.addressHash(for: key)
        #expect(ah(0x708194) == 0x0dfbaa)
        // As an address: prand above, hash below; its top bits 01 make it resolvable.
        let address = BluetoothAddress("70:81:94:0d:fb:aa")!
        #expect(IdentityResolvingKey.isResolvablePrivateAddress(address, type: .random))
        #expect(!IdentityResolvingKey.isResolvablePrivateAddress(address, type: .public))
        #expect(IdentityResolvingKey.resolvablePrivateAddress(prand: 0x708194, ah: ah) == address)
        var resolver = PrivateAddressResolver(hashes: [ah])
        #expect(resolver.resolve(address) == 0)
    }

    @Test func theKeychainFormIsTheSameKeyReversed() throws {
        let hex = try IdentityResolvingKey(parsing: Self.specKey)
        #expect(try IdentityResolvingKey(parsing: Self.specKeyKeychain) == hex)
        #expect(try IdentityResolvingKey(parsing: "m305CqYQEDQFrchXozQC7A") == hex)
        // Upper case and byte separators, as tools print keys.
        #expect(try IdentityResolvingKey(parsing: "EC:02:34:A3:57:C8:AD:05:34:10:10:A6:0A:39:7D:9B") == hex)
    }

    @Test func theCanonicalIDIsADigestOfTheSpecOrder() throws {
        let key = try IdentityResolvingKey(parsing: Self.specKey)
        // sha256(ec0234a3…7d9b) begins 54903897edb0 (Python's hashlib agrees).
        #expect(BeaconID(key.canonicalID(sha256: crypto.sha256)).rawValue == "irk-54903897edb0")
        #expect(try BeaconID(parsing: "irk-54903897edb0").components == key.canonicalID(sha256: crypto.sha256))
    }

    @Test func malformedKeysAreNamedAndNeverShown() {
        let cases: [(String, String)] = [
            ("ec0234a357c8ad05341010a60a397d9", "has 31 hex digits, not 32"),
            ("ec0234a357c8ad05341010a60a397d9b00", "has 34 hex digits, not 32"),
            ("m305CqYQEDQFrchXozQC", "is base64 of 15 bytes, not 16"),
            ("ec0234a357c8ad05341010a60a397d9z", "has 32 characters but not all are hex digits"),
            ("ec0234a357c8ad05-341010a60a397d9b!", "is neither hex nor base64"),
            ("", "is empty"),
        ]
        for (text, expected) in cases {
            do {
                _ = try IdentityResolvingKey(parsing: text)
                Issue.record("accepted \(text.count) characters")
            } catch {
                #expect(error.description.contains(expected), "\(error)")
                if !text.isEmpty { #expect(!error.description.contains(text.prefix(8))) }
            }
        }
    }

    @Test func aKeyDoesNotPrintItself() throws {
        let key = try IdentityResolvingKey(parsing: Self.specKey)
        let known = KnownBeacon(beacon: "irk-54903897edb0", alias: TopicLevelID("alice-phone"), irk: key)
        for text in [String(describing: key), String(reflecting: key), String(describing: known), String(reflecting: known), "\(key)"] {
            #expect(!text.lowercased().contains("ec0234"), "\(text)")
            #expect(!text.contains("m305"), "\(text)")
        }
    }

    // MARK: - config/beacons

    func parse(_ beacons: String) throws(ConfigError) -> [KnownBeacon] {
        guard case .replaced(let config) = try KnownBeaconsConfig.parse(
            Array(#"{"revision":1,"beacons":[\#(beacons)]}"#.utf8), crypto: crypto)
        else { return [] }
        return config.beacons
    }

    func error(_ beacons: String) -> String? {
        do {
            _ = try parse(beacons)
            return nil
        } catch { return error.description }
    }

    @Test func aDeviceIsKnownByItsKeyUnderItsAlias() throws {
        let beacons = try parse(#"{"irk":"\#(Self.specKey)","id":"alice-phone","name":"Alice's iPhone","awayTimeout":600},"#
            + #"{"irk":"\#(Self.specKeyKeychain.replacingOccurrences(of: "m", with: "n"))","id":"bob-watch"}"#)
        #expect(beacons[0].beacon == "irk-54903897edb0")
        #expect(beacons[0].topicID == "alice-phone")
        #expect(beacons[0].awayTimeout == 600)
        #expect(beacons[0].irk?.specOrderHex == Self.specKey)
        #expect(beacons[1].beacon.rawValue.hasPrefix("irk-"))
    }

    @Test func keyEntriesAreCheckedAndTheKeyNeverEchoed() {
        let bad = "ec0234a357c8ad05341010a60a397d"
        let cases: [(String, String)] = [
            (#"{"beacon":"mac-c4a1b2c3d4e5"},{"irk":"\#(bad)","id":"p"}"#, "beacons[1].irk: has 30 hex digits, not 32"),
            (#"{"irk":"\#(Self.specKey)"}"#, "beacons[0].id: required for a device known by its irk"),
            (#"{"irk":12,"id":"p"}"#, "beacons[0].irk: expected text"),
            (#"{"irk":"\#(Self.specKey)","beacon":"mac-c4a1b2c3d4e5","id":"p"}"#, "beacons[0].beacon: an entry has either beacon or irk"),
            (#"{"irk":"\#(Self.specKey)","id":"p"},{"irk":"\#(Self.specKeyKeychain)","id":"q"}"#,
             "beacons[1].irk: duplicate beacon 'irk-54903897edb0'"),
            (#"{"irk":"\#(Self.specKey)","id":"p","awayTimeout":0}"#, "beacons[0].awayTimeout"),
        ]
        for (entries, expected) in cases {
            let message = error(entries)
            #expect(message?.hasPrefix(expected) == true, "\(message ?? "accepted")")
            #expect(message?.contains("ec0234a357") != true)
            #expect(message?.contains(bad) != true)
        }
    }

    @Test func withoutCryptoAKeyIsRefusedButItsIDIsAccepted() throws {
        // The aggregator holds no keys: it names a phone by the id its measurements carry.
        let text = #"{"revision":1,"beacons":[{"irk":"\#(Self.specKey)","id":"p"}]}"#
        #expect(throws: ConfigError.self) { try KnownBeaconsConfig.parse(Array(text.utf8)) }
        let byID = #"{"revision":1,"beacons":[{"beacon":"irk-54903897edb0","id":"alice-phone","awayTimeout":900}]}"#
        guard case .replaced(let config) = try KnownBeaconsConfig.parse(Array(byID.utf8)) else { return }
        #expect(config.beacons[0].awayTimeout == 900)
    }

    // MARK: - The resolver

    @Test func eachAddressCostsItsAESOnceMatchOrMiss() throws {
        let keys = try (0..<10).map { index in
            try IdentityResolvingKey(parsing: String(repeating: String(format2(index)), count: 16))
        }
        var resolver = PrivateAddressResolver(hashes: keys.map(crypto.addressHash(for:)))
        let phone = IdentityResolvingKey.resolvablePrivateAddress(prand: 0x123456, ah: crypto.addressHash(for: keys[7]))
        #expect(resolver.resolve(phone) == 7)
        #expect(resolver.hashCount == 8)
        for _ in 0..<100 { #expect(resolver.resolve(phone) == 7) }
        #expect(resolver.hashCount == 8)
        let stranger = BluetoothAddress(rawValue: 0x4A_BC_DE_00_11_22)
        #expect(resolver.resolve(stranger) == nil)
        #expect(resolver.hashCount == 18)
        for _ in 0..<100 { #expect(resolver.resolve(stranger) == nil) }
        #expect(resolver.hashCount == 18)
    }

    @Test func aFloodOfOneOffAddressesIsBoundedAndKeepsTheMatches() throws {
        let key = try IdentityResolvingKey(parsing: Self.specKey)
        let ah = crypto.addressHash(for: key)
        var resolver = PrivateAddressResolver(hashes: [ah], missCapacity: 1_000)
        let phone = IdentityResolvingKey.resolvablePrivateAddress(prand: 0x708194, ah: ah)
        #expect(resolver.resolve(phone) == 0)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            _ = resolver.resolve(BluetoothAddress(rawValue: 0x4000_0000_0000 | generator.next() & 0x3FFF_FFFF_FFFF))
        }
        #expect(resolver.rememberedAddressCount <= 1 + 2 * 1_000)
        let before = resolver.hashCount
        #expect(resolver.resolve(phone) == 0)
        #expect(resolver.hashCount == before)
    }
}

private func format2(_ value: Int) -> String {
    String(value % 10) + String((value + 3) % 10)
}
