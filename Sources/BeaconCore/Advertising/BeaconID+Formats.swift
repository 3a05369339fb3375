extension BeaconID {
    /// The kinds of canonical id (docs/MQTT.md), spelled as their prefix.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `ibeacon-<uuid>-<major>-<minor>`.
        case iBeacon = "ibeacon"
        /// `altbeacon-<40 hex>`.
        case altBeacon = "altbeacon"
        /// `eddystone-<namespace hex>-<instance hex>`.
        case eddystone = "eddystone"
        /// `mac-<12 hex>`: an advertiser with no advertised identity.
        case mac = "mac"
        /// `irk-<12 hex>`: a phone or watch known by its identity resolving key.
        case irk = "irk"
    }

    /// A canonical id taken apart: what it identifies, in typed values.
    ///
    /// Hashable and free of strings, so it is also the cheap per-report key for hot paths; render
    /// the `BeaconID` string only when it is published.
    public enum Components: Hashable, Sendable {
        /// An iBeacon's UUID, major and minor.
        case iBeacon(uuid: BeaconUUID, major: UInt16, minor: UInt16)
        /// An AltBeacon's 20-byte id.
        case altBeacon(AltBeacon.Identifier)
        /// An Eddystone-UID's namespace and 6-byte instance.
        case eddystone(namespace: EddystoneUID.Namespace, instance: UInt64)
        /// The advertiser's Bluetooth address.
        case mac(BluetoothAddress)
        /// A phone or watch resolved through its IRK: the first 48 bits of SHA-256 of the key
        /// (`IdentityResolvingKey.canonicalID`), never the key itself.
        case irk(UInt64)

        /// The kind of id these components make.
        public var kind: Kind {
            switch self {
            case .iBeacon: .iBeacon
            case .altBeacon: .altBeacon
            case .eddystone: .eddystone
            case .mac: .mac
            case .irk: .irk
            }
        }
    }

    /// `ibeacon-<uuid lowercase, hyphenated>-<major decimal>-<minor decimal>`.
    public static func iBeacon(uuid: BeaconUUID, major: UInt16, minor: UInt16) -> BeaconID {
        var text = "ibeacon-"
        text.reserveCapacity(56)
        text += uuid.description
        text += "-"
        text += String(major)
        text += "-"
        text += String(minor)
        return BeaconID(rawValue: text)
    }

    /// `altbeacon-<40 hex>`.
    public static func altBeacon(_ identifier: AltBeacon.Identifier) -> BeaconID {
        BeaconID(rawValue: "altbeacon-" + identifier.description)
    }

    /// `eddystone-<20 hex namespace>-<12 hex instance>`.
    public static func eddystone(namespace: EddystoneUID.Namespace, instance: UInt64) -> BeaconID {
        BeaconID(rawValue: "eddystone-" + namespace.description + "-" + HexDigits.string(instance, byteCount: 6))
    }

    /// `mac-<12 hex>`: for anything without an advertised identity.
    public static func mac(_ address: BluetoothAddress) -> BeaconID {
        BeaconID(rawValue: "mac-" + address.compactHex)
    }

    /// `irk-<12 hex>`: a device resolved through its IRK, named by a digest of the key.
    public static func irk(_ fingerprint: UInt64) -> BeaconID {
        BeaconID(rawValue: "irk-" + HexDigits.string(fingerprint & 0xFFFF_FFFF_FFFF, byteCount: 6))
    }

    /// The canonical id of `components`.
    public init(_ components: Components) {
        switch components {
        case .iBeacon(let uuid, let major, let minor): self = .iBeacon(uuid: uuid, major: major, minor: minor)
        case .altBeacon(let identifier): self = .altBeacon(identifier)
        case .eddystone(let namespace, let instance): self = .eddystone(namespace: namespace, instance: instance)
        case .mac(let address): self = .mac(address)
        case .irk(let fingerprint): self = .irk(fingerprint)
        }
    }

    /// Accepts only a canonical id, exactly as this program would write it (so that a configured
    /// id can match what is heard); throws naming the part that is wrong otherwise.
    public init(parsing text: String) throws(BeaconIDError) {
        let components = try Self.components(parsing: text)
        self.init(components)
    }

    /// This id taken apart, or nil if it is not canonical.
    public var components: Components? {
        try? Self.components(parsing: rawValue)
    }

    /// Takes a canonical id apart; throws naming the part that is wrong.
    public static func components(parsing text: String) throws(BeaconIDError) -> Components {
        func fail(_ code: BeaconIDError.Code, _ field: String, _ message: String) -> BeaconIDError {
            BeaconIDError(code: code, text: text, field: field, message: message)
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let kindText = parts.first, let kind = Kind(rawValue: kindText) else {
            if text.contains(where: \.isUppercase), Kind(rawValue: (parts.first ?? "").lowercased()) != nil {
                throw fail(.notLowercase, "id", "beacon ids are lower-case (write hex digits as a-f)")
            }
            throw fail(
                .unknownKind, "kind",
                "unknown beacon id kind '\(parts.first ?? "")' (expected ibeacon-, altbeacon-, eddystone-, mac- or irk-)")
        }
        if text.contains(where: \.isUppercase) {
            throw fail(.notLowercase, "id", "beacon ids are lower-case (write hex digits as a-f)")
        }
        switch kind {
        case .iBeacon:
            // ibeacon - 8 - 4 - 4 - 4 - 12 - major - minor
            guard parts.count == 8 else {
                throw fail(.wrongShape, "uuid", "expected ibeacon-<uuid>-<major>-<minor>")
            }
            let uuidText = parts[1...5].joined(separator: "-")
            guard parts[1...5].map(\.utf8.count) == [8, 4, 4, 4, 12], let uuid = BeaconUUID(uuidText) else {
                throw fail(.malformedUUID, "uuid", "uuid '\(uuidText)' is not a lower-case 8-4-4-4-12 UUID")
            }
            let major = try number(parts[6], field: "major", fail: fail)
            let minor = try number(parts[7], field: "minor", fail: fail)
            return .iBeacon(uuid: uuid, major: major, minor: minor)
        case .altBeacon:
            guard parts.count == 2 else { throw fail(.wrongShape, "id", "expected altbeacon-<40 hex digits>") }
            guard let bytes = hexBytes(parts[1], count: 20), let identifier = AltBeacon.Identifier(bytes: bytes) else {
                throw fail(.malformedHex, "id", "id '\(parts[1])' is not 40 lower-case hex digits")
            }
            return .altBeacon(identifier)
        case .eddystone:
            guard parts.count == 3 else {
                throw fail(.wrongShape, "namespace", "expected eddystone-<20 hex namespace>-<12 hex instance>")
            }
            guard let namespaceBytes = hexBytes(parts[1], count: 10),
                let namespace = EddystoneUID.Namespace(bytes: namespaceBytes)
            else {
                throw fail(.malformedHex, "namespace", "namespace '\(parts[1])' is not 20 lower-case hex digits")
            }
            guard let instanceBytes = hexBytes(parts[2], count: 6) else {
                throw fail(.malformedHex, "instance", "instance '\(parts[2])' is not 12 lower-case hex digits")
            }
            let instance = instanceBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .eddystone(namespace: namespace, instance: instance)
        case .mac:
            guard parts.count == 2 else { throw fail(.wrongShape, "address", "expected mac-<12 hex digits>") }
            guard hexBytes(parts[1], count: 6) != nil, let address = BluetoothAddress(parts[1]) else {
                throw fail(.malformedHex, "address", "address '\(parts[1])' is not 12 lower-case hex digits")
            }
            return .mac(address)
        case .irk:
            guard parts.count == 2, let bytes = hexBytes(parts[1], count: 6) else {
                throw fail(.malformedHex, "id", "expected irk-<12 lower-case hex digits>")
            }
            return .irk(bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
    }

    /// A decimal 0…65535 as this program writes it: digits only, no sign, no leading zero.
    private static func number(
        _ text: String, field: String, fail: (BeaconIDError.Code, String, String) -> BeaconIDError
    ) throws(BeaconIDError) -> UInt16 {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            digits.count == 1 || digits[0] != 0x30, let value = UInt16(text)
        else {
            throw fail(.malformedNumber, field, "\(field) '\(text)' is not a decimal 0…65535 without leading zeros")
        }
        return value
    }

    /// Exactly `count` bytes as `2 × count` hex digits, else nil.
    private static func hexBytes(_ text: String, count: Int) -> [UInt8]? {
        guard text.utf8.count == 2 * count, let bytes = HexDigits.bytes(text), bytes.count == count else { return nil }
        return bytes
    }
}
