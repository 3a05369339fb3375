#ifndef BEACONPRESENCE_CLIBCRYPTO_SHIM_H
#define BEACONPRESENCE_CLIBCRYPTO_SHIM_H
// OpenSSL's libcrypto for the two primitives the project needs: AES-128 (one block, the `ah` of a
// resolvable private address) and SHA-256 (the canonical `irk-…` id). The one-block AES_encrypt
// with an expanded key kept as a plain struct is what resolving needs (no context object, no
// allocation per block, safe to share between threads); OpenSSL 3 marks it deprecated in favour of
// EVP but keeps it, so its deprecation warnings are silenced here rather than in every build log.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/aes.h>
#include <openssl/evp.h>
#endif
