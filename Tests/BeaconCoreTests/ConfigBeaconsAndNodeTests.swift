import Testing
@testable import BeaconCore

@Suite struct ConfigBeaconsAndNodeTests {
    let aliceKeys = "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6"

    func beaconsError(_ text: String) -> String? {
        do {
            _ = try KnownBeaconsConfig.parse(payload(text))
            return nil
        } catch { return error.description }
    }

    func nodeError(_ text: String) -> String? {
        do {
            _ = try NodeSettings.parse(payload(text))
            return nil
        } catch { return error.description }
    }

    @Test func knownBeaconsMessageAsMQTTmdShowsIt() throws {
        let text = #"{"revision":3,"beacons":[{"beacon":"\#(aliceKeys)","id":"alice-keys","name":"Alice's keys","measuredPower":-59},{"beacon":"mac-c4a1b2c3d4e5"}]}"#
        guard case .replaced(let config) = try KnownBeaconsConfig.parse(payload(text)) else {
            Issue.record("expected beacons")
            return
        }
        #expect(config.revision == 3)
        #expect(config.beacons[0].beacon.rawValue == aliceKeys)
        #expect(config.beacons[0].alias?.rawValue == "alice-keys")
        #expect(config.beacons[0].name == "Alice's keys")
        #expect(config.beacons[0].measuredPower == -59)
        #expect(config.beacons[0].topicID == "alice-keys")
        #expect(config.beacons[1].topicID == "mac-c4a1b2c3d4e5")
        #expect(config.beacons[1].alias == nil && config.beacons[1].measuredPower == nil)
    }

    @Test func beaconIDsMustBeCanonical() {
        #expect(BeaconIDSyntax.canonical(aliceKeys) == aliceKeys)
        #expect(BeaconIDSyntax.canonical("altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002") != nil)
        #expect(BeaconIDSyntax.canonical("eddystone-12345678901234678901-000000000001") != nil)
        #expect(BeaconIDSyntax.canonical("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-65536-1") == nil)
        #expect(BeaconIDSyntax.canonical("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5") == nil)
        #expect(BeaconIDSyntax.canonical("mac-c4a1b2c3d4") == nil)
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"alice"}]}"#)
                == "beacons[0].beacon: 'alice' is not a beacon id (ibeacon-<uuid>-<major>-<minor>, altbeacon-<40 hex>, eddystone-<20 hex>-<12 hex>, mac-<12 hex> or irk-<12 hex>)")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"iBeacon-FDA50693A4E24FB1AFCFC6EB07647825-05-6"}]}"#)
                == "beacons[0].beacon: 'iBeacon-FDA50693A4E24FB1AFCFC6EB07647825-05-6' is not in canonical form; write '\(aliceKeys)'")
    }

    @Test func randomBeaconIDsNeverCrashAndCanonicalFormsAreFixedPoints() {
        var generator = SplitMix64(seed: 7)
        let pieces = ["ibeacon-", "altbeacon-", "eddystone-", "mac-", "-", "0", "9", "f", "F", "65535", "65536", "\u{e9}", "\u{0}", aliceKeys]
        for _ in 0..<5_000 {
            let text = (0..<Int(generator.next() % 6)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            if let canonical = BeaconIDSyntax.canonical(text) {
                #expect(BeaconIDSyntax.canonical(canonical) == canonical)
                #expect(TopicLevelID(canonical) != nil)
            }
        }
    }

    /// `isCanonical` checks the iBeacon form on its bytes: it must say what `canonical(x) == x`
    /// says, for every id one edit away from canonical ones (each byte replaced, dropped or
    /// doubled) and for majors and minors around their limits.
    @Test func isCanonicalIsCanonicalFormAsItIs() {
        func check(_ text: String) {
            #expect(BeaconIDSyntax.isCanonical(text) == (BeaconIDSyntax.canonical(text) == text), "\(text)")
        }
        let ids = [aliceKeys, "ibeacon-00000000-0000-0000-0000-000000000000-0-0", "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-65535-10"]
        let replacements: [Character] = ["0", "9", "a", "f", "g", "A", "F", "-", "\u{e9}", " ", "/"]
        for id in ids {
            check(id)
            let characters = Array(id)
            for index in characters.indices {
                var dropped = characters
                dropped.remove(at: index)
                check(String(dropped))
                var doubled = characters
                doubled.insert(characters[index], at: index)
                check(String(doubled))
                for replacement in replacements {
                    var replaced = characters
                    replaced[index] = replacement
                    check(String(replaced))
                }
            }
        }
        let uuid = "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-"
        for number in ["0", "00", "01", "1", "10", "65535", "65536", "99999", "100000", "", "-1", "1a", "+1"] {
            check(uuid + number + "-7")
            check(uuid + "7-" + number)
            check(uuid + number)
        }
        for other in ["altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002", "mac-c4a1b2c3d4e5", "irk-c4a1b2c3d4e5", "MAC-C4A1B2C3D4E5",
                      "IBEACON-FDA50693-A4E2-4FB1-AFCF-C6EB07647825-5-6", "iBeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6",
                      "ibeacon-fda50693a4e24fb1afcfc6eb07647825-5-6", "ibeacon-", "", "alice"] {
            check(other)
        }
    }

    @Test func knownBeaconErrorsNameTheField() {
        let entry = #"{"beacon":"\#(aliceKeys)","id":"alice-keys"}"#
        #expect(
            beaconsError(#"{"revision":1,"beacons":[\#(entry),{"beacon":"mac-c4a1b2c3d4e5","id":"alice-keys"}]}"#)
                == "beacons[1].id: duplicate id 'alice-keys'")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[\#(entry),{"beacon":"\#(aliceKeys)"}]}"#)
                == "beacons[1].beacon: duplicate beacon '\(aliceKeys)'")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"mac-c4a1b2c3d4e5","id":"mac-000000000001"},{"beacon":"mac-000000000001"}]}"#)
                == "beacons[0].id: 'mac-000000000001' is the id of another beacon")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"\#(aliceKeys)","measuredPower":12}]}"#)
                == "beacons[0].measuredPower: 12 is not in -127…0")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"\#(aliceKeys)","id":"Alice"}]}"#)
                == "beacons[0].id: 'Alice' is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"\#(aliceKeys)","name":""}]}"#)
                == "beacons[0].name: must be 1–128 characters")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"\#(aliceKeys)","power":-59}]}"#)
                == "beacons[0].power: unknown key (known keys: beacon, irk, id, name, measuredPower, awayTimeout, worn)")
    }

    /// `worn: true` marks a beacon worn on a body; absent, it is not.
    @Test func knownBeaconWorn() throws {
        let text = #"{"revision":1,"beacons":[{"beacon":"\#(aliceKeys)","id":"alice-band","worn":true},{"beacon":"mac-c4a1b2c3d4e5","worn":false},{"beacon":"mac-000000000001"}]}"#
        guard case .replaced(let config) = try KnownBeaconsConfig.parse(payload(text)) else {
            Issue.record("expected beacons")
            return
        }
        #expect(config.beacons.map(\.worn) == [true, false, false])
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"\#(aliceKeys)","worn":"yes"}]}"#)
                == "beacons[0].worn: expected true or false, got a string")
        #expect(
            beaconsError(#"{"revision":1,"beacons":[{"beacon":"\#(aliceKeys)","worn":1}]}"#)
                == "beacons[0].worn: expected true or false, got an integer")
    }

    @Test func nodeSettingsMessage() throws {
        let text = #"{"revision":2,"room":"kitchen","rssiOffset":-3,"pathLossExponent":2.7,"exitDelay":45,"reportUnknown":true,"heartbeat":60,"rssiStep":3}"#
        guard case .replaced(let settings) = try NodeSettings.parse(payload(text)) else {
            Issue.record("expected settings")
            return
        }
        #expect(
            settings
                == NodeSettings(
                    revision: 2, room: try topicID("kitchen"), rssiOffset: -3, pathLossExponent: 2.7, exitDelay: 45,
                    reportUnknown: true, heartbeat: 60, rssiStep: 3))
        guard case .replaced(let sparse) = try NodeSettings.parse(payload(#"{"revision":3}"#)) else {
            Issue.record("expected settings")
            return
        }
        #expect(sparse == NodeSettings(revision: 3))
    }

    @Test func nodeSettingsRanges() {
        #expect(nodeError(#"{"revision":2,"rssiOffset":45}"#) == "rssiOffset: 45 is not in -30…30")
        #expect(nodeError(#"{"revision":2,"pathLossExponent":0.5}"#) == "pathLossExponent: 0.5 is not in 1…6")
        #expect(nodeError(#"{"revision":2,"exitDelay":0}"#) == "exitDelay: 0 is not in 1…3600")
        #expect(nodeError(#"{"revision":2,"heartbeat":86400}"#) == "heartbeat: 86400 is not in 1…3600")
        #expect(nodeError(#"{"revision":2,"rssiStep":0}"#) == "rssiStep: 0 is not in 0.5…20")
        #expect(nodeError(#"{"revision":2,"reportUnknown":1}"#) == "reportUnknown: expected true or false, got an integer")
        #expect(nodeError(#"{"revision":2,"room":"Kitchen 1"}"#) == "room: 'Kitchen 1' is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')")
        #expect(nodeError(#"{"revision":2,"rssiOffset":"-3"}"#) == "rssiOffset: expected a number, got a string")
        #expect(nodeError(#"{"revision":2,"exitdelay":30}"#)?.hasPrefix("exitdelay: unknown key (known keys: revision, room,") == true)
    }
}
