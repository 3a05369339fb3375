import BeaconCore

/// ESPresense's device ids (`BleFingerprint::fingerprint` and `setId` in src/BleFingerprint.cpp of
/// github.com/ESPresense/ESPresense) turned into this project's canonical ids (docs/MQTT.md).
///
/// - `iBeacon:<uuid>-<major>-<minor>` → `ibeacon-<uuid>-<major>-<minor>`.
/// - `altBeacon:<uuid>-<major>-<minor>` → `altbeacon-<40 hex>`: the AltBeacon's 20-byte id is the
///   UUID, major and minor bytes in order, as ESPresense reads them with its iBeacon parser.
/// - `eddy:<22 hex>-<12 hex>`: ESPresense prints the namespace's fifth byte twice (its format
///   string passes `strServiceData[6]` twice), so 22 hex digits; the repeated pair is dropped and
///   the rest is `eddystone-<20 hex>-<12 hex>`. An id whose repeated pair differs is not one
///   ESPresense made and is refused.
/// - `irk:<32 hex>`: a phone it resolved with a key the user gave it, the key itself in the spec's
///   order (`ble_ll_resolv_rpa` feeds it to a big-endian AES as written) → `irk-<12 hex>`, cut
///   from the key's SHA-256 as everywhere else. The key is used for that digest and dropped.
/// - 12 hex digits (a public or static address, `getMac()`) → `mac-<12 hex>`.
/// - anything else (`apple:…`, `msft:…`, `name:…`, `node:…`, a user's alias): nil, unless it is
///   the alias (`id`) of a known beacon, which the caller looks up.
public enum ESPresenseDeviceID {
    /// The canonical id of an ESPresense id, or nil when it names no identity of ours.
    public static func canonical(_ id: String, sha256: ([UInt8]) -> [UInt8]) -> BeaconID? {
        guard let colon = id.firstIndex(of: ":") else {
            guard id.utf8.count == 12, let bytes = HexDigits.bytes(id) else { return nil }
            let raw = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .mac(BluetoothAddress(rawValue: raw))
        }
        let kind = id[..<colon]
        let rest = String(id[id.index(after: colon)...])
        switch kind {
        case "iBeacon":
            guard let (uuid, major, minor) = uuidMajorMinor(rest) else { return nil }
            return .iBeacon(uuid: uuid, major: major, minor: minor)
        case "altBeacon":
            guard let (uuid, major, minor) = uuidMajorMinor(rest) else { return nil }
            let bytes = uuid.bytes + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF)]
            return BeaconID(rawValue: "altbeacon-" + HexDigits.string(bytes))
        case "eddy":
            let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].utf8.count == 22, parts[1].utf8.count == 12,
                let namespace = HexDigits.bytes(String(parts[0])), let instance = HexDigits.bytes(String(parts[1]))
            else { return nil }
            guard namespace[4] == namespace[5] else { return nil }
            var fixed = namespace
            fixed.remove(at: 5)
            return BeaconID(rawValue: "eddystone-" + HexDigits.string(fixed) + "-" + HexDigits.string(instance))
        case "irk":
            guard rest.utf8.count == 32, let bytes = HexDigits.bytes(rest), let key = IdentityResolvingKey(specOrder: bytes)
            else { return nil }
            return BeaconID(key.canonicalID(sha256: sha256))
        default:
            return nil
        }
    }

    /// Whether `id` carries a key (`irk:…`).
    public static func carriesKey(_ id: String) -> Bool { id.hasPrefix("irk:") }

    /// `<uuid>-<major>-<minor>` with a hyphenated UUID (NimBLE's `BLEUUID::toString`).
    private static func uuidMajorMinor(_ text: String) -> (BeaconUUID, UInt16, UInt16)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 7, let uuid = BeaconUUID(parts[0..<5].joined(separator: "-")),
            let major = decimal(parts[5]), let minor = decimal(parts[6])
        else { return nil }
        return (uuid, major, minor)
    }

    private static func decimal(_ text: Substring) -> UInt16? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt16(text)
    }
}
