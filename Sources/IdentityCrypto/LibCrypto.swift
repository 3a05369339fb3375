import BeaconCore
import CLibCrypto

/// OpenSSL's libcrypto, wrapped once (the only file that imports `CLibCrypto`): AES-128 for the
/// `ah` function that resolves private addresses, SHA-256 for the canonical `irk-…` id.
///
/// Why libcrypto and not swift-crypto: every Debian system has it (`libssl-dev` to build,
/// `libssl3` to run, already under libmosquitto's TLS), it builds in no time where swift-crypto's
/// BoringSSL adds about a minute to every clean build, and swift-crypto has no raw one-block AES
/// anyway (only AES-GCM and key wrap). Both calls are pure functions of their arguments: no
/// context object, no global state, safe from any thread.
public struct LibCrypto: IdentityKeyCrypto {
    public init() {}

    /// SHA-256 through EVP's one-shot digest.
    public func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when it cannot allocate its context: nothing to go on with.
        precondition(ok == 1 && length == 32, "libcrypto: SHA-256 failed")
        return digest
    }

    /// `ah(k, r) = e(k, r') mod 2^24`, `r'` the 24-bit `prand` padded with zeros to 128 bits
    /// (Core Vol 3 Part H §2.2.2), `e` AES-128 with the spec's byte order: the most significant
    /// byte of the key and of the plaintext first. The key schedule is expanded once, here; the
    /// returned function encrypts one block per call.
    public func addressHash(for key: IdentityResolvingKey) -> AddressHash {
        var schedule = AES_KEY()
        let status = key.specOrderBytes.withUnsafeBufferPointer { AES_set_encrypt_key($0.baseAddress, 128, &schedule) }
        // Fails only for a null pointer or a bit count other than 128/192/256: neither can happen.
        precondition(status == 0, "libcrypto: AES key setup failed")
        let expanded = schedule
        return { prand in
            var schedule = expanded
            var block: (UInt64, UInt64) = (0, 0)
            return withUnsafeMutableBytes(of: &block) { bytes in
                bytes[13] = UInt8(truncatingIfNeeded: prand >> 16)
                bytes[14] = UInt8(truncatingIfNeeded: prand >> 8)
                bytes[15] = UInt8(truncatingIfNeeded: prand)
                let pointer = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                AES_encrypt(pointer, pointer, &schedule)
                return UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
            }
        }
    }
}
