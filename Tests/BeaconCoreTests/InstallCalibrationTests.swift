import Testing
@testable import BeaconCore

/// `presence-agent calibrate`'s core fed real HCI bytes: record 134 of the horizon capture (a Govee
/// sensor's iBeacon, scan response, stating −62 dBm at 1 m) with its RSSI byte set to each reading,
/// as a controller would report the same beacon held at 1 m.
@Suite struct InstallCalibrationTests {
    /// Record 134 of `data/captures/horizon-74-at-ble.btsnoop` without its H4 type byte; its last
    /// byte is the RSSI (−49 as recorded).
    static let record134 = HCITestData.hex(
        "3e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")
    static let govee: BeaconID = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"
    /// The same sensor family's other beacon (major 20597), from another address.
    static var otherGovee: [UInt8] {
        var bytes = record134
        bytes[36] = 0x75  // major 0x5075
        bytes[6] = 0xac  // another address
        return bytes
    }

    /// The advertisements a controller reports for `packet` at each (time, rssi).
    static func adverts(_ packet: [UInt8], _ readings: [(Double, Int)]) -> [DecodedAdvertisement] {
        var decoder = AdvertisementDecoder()
        var out: [DecodedAdvertisement] = []
        for (time, rssi) in readings {
            var bytes = packet
            bytes[bytes.count - 1] = UInt8(bitPattern: Int8(rssi))
            decoder.decode(eventPacket: bytes[...], at: Instant(seconds: time)) { out.append($0) }
        }
        return out
    }

    /// Readings every `interval` s from `start` for `seconds`, cycling through `levels`.
    static func readings(from start: Double = 0, every interval: Double = 0.5, for seconds: Double, levels: [Int]) -> [(Double, Int)] {
        stride(from: start, to: start + seconds, by: interval).enumerated().map { ($0.element, levels[$0.offset % levels.count]) }
    }

    /// Feeds the adverts in time order, ticking as a source's loop does, and returns every action.
    static func run(_ settings: InstallCalibration.Settings, _ adverts: [DecodedAdvertisement], until end: Double) -> [InstallCalibration.Action] {
        var calibration = InstallCalibration(settings: settings, at: Instant(seconds: 0))
        var actions = calibration.opening()
        var pending = adverts.sorted { $0.time < $1.time }[...]
        var time = 0.0
        while time <= end && !calibration.isOver {
            while let next = pending.first, next.time.seconds <= time {
                actions += calibration.receive(next)
                pending = pending.dropFirst()
            }
            actions += calibration.tick(at: Instant(seconds: time))
            time += 0.2
        }
        return actions
    }

    static func outcome(_ actions: [InstallCalibration.Action]) -> InstallCalibration.Action? {
        actions.first { if case .say = $0 { false } else { true } }
    }

    static func named(_ beacon: BeaconID = govee) -> InstallCalibration.Settings {
        var settings = InstallCalibration.Settings()
        settings.beacon = beacon
        return settings
    }

    @Test func theRecordedAdvertDecodesAsTheGoveeBeacon() {
        let advert = Self.adverts(Self.record134, [(0, -49)])
        #expect(advert.map(\.beaconID) == [Self.govee])
        #expect(advert.first?.beacon?.measuredPower == -62)
    }

    /// A node that hears the beacon 3 dB under its stated −62 dBm gets −3, and with it reads that
    /// beacon at 1 m as 1 m whatever n.
    @Test func aNodeThatHearsWeakerGetsANegativeOffsetThatReadsOneMetre() throws {
        let adverts = Self.adverts(Self.record134, Self.readings(for: 40, levels: [-64, -65, -66, -65]))
        let actions = Self.run(Self.named(), adverts, until: 40)
        guard case .finished(let reference)? = Self.outcome(actions) else {
            Issue.record("not finished: \(actions)")
            return
        }
        #expect(reference.beacon == Self.govee)
        #expect(reference.rssi == -65)
        #expect(reference.measuredPower == -62)
        #expect(reference.powerSource == .advertised)
        #expect(reference.rssiOffset == -3)
        #expect(reference.readings == 60)  // 30 s at two a second
        #expect(reference.seconds == 30)
        for n in [1.5, 2.7] {
            let model = DistanceModel(pathLossExponent: n, rssiOffset: reference.rssiOffset, defaultMeasuredPower: -60)
            #expect(abs(model.distance(rssi: reference.rssi, measuredPower: -62) - 1) < 1e-9)
        }
        // Progress is said every 5 s while collecting.
        let progress = actions.compactMap { if case .say(let line) = $0, line.contains(" s of 30: ") { line } else { nil } }
        #expect(progress.count == 5)
        #expect(progress.first == "5 s of 30: 11 readings, mean -65 dBm")
    }

    @Test func aConfiguredPowerWinsOverTheStatedOne() throws {
        var settings = Self.named()
        settings.configuredPowers = [Self.govee: -59]
        let adverts = Self.adverts(Self.record134, Self.readings(for: 40, levels: [-60]))
        guard case .finished(let reference)? = Self.outcome(Self.run(settings, adverts, until: 40)) else {
            Issue.record("not finished")
            return
        }
        #expect(reference.powerSource == .configured)
        #expect(reference.rssiOffset == -1)
    }

    /// Without --beacon the loudest beacon that states a power is taken, and a close runner-up is named.
    @Test func theLoudestBeaconIsChosenAndSaid() throws {
        let near = Self.adverts(Self.record134, Self.readings(for: 50, levels: [-55]))
        let far = Self.adverts(Self.otherGovee, Self.readings(from: 0.1, for: 50, levels: [-58]))
        let actions = Self.run(InstallCalibration.Settings(), near + far, until: 50)
        let choice = actions.compactMap { if case .say(let line) = $0, line.hasPrefix("Calibrating with") { line } else { nil } }
        #expect(choice.count == 1)
        #expect(choice.first?.hasPrefix("Calibrating with \(Self.govee) (states -62 dBm at 1 m; the loudest heard, -55 dBm; next ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20597-62207 at -58 dBm, close") == true)
        #expect(choice.first?.contains("name the one you hold with --beacon") == true)
        guard case .finished(let reference)? = Self.outcome(actions) else {
            Issue.record("not finished: \(actions)")
            return
        }
        #expect(reference.beacon == Self.govee)
        #expect(reference.rssiOffset == 7)
    }

    @Test func tooFewReadingsAreRefused() {
        let adverts = Self.adverts(Self.record134, Self.readings(every: 2, for: 40, levels: [-60]))
        let outcome = Self.outcome(Self.run(Self.named(), adverts, until: 40))
        #expect(outcome == .refused(.tooShort(readings: 15, minimum: 20, seconds: 30, asked: 30)))
        #expect(InstallCalibration.Rejection.tooShort(readings: 15, minimum: 20, seconds: 30, asked: 30).description
            == "too short: 15 readings, 20 needed: keep the beacon near and on, or give a longer --duration")
    }

    @Test func readingsSpreadTooWideAreRefusedAsNoisy() {
        let adverts = Self.adverts(Self.record134, Self.readings(for: 40, levels: [-50, -80]))
        guard case .refused(.tooNoisy(let standardError, let spread, let limit))? = Self.outcome(Self.run(Self.named(), adverts, until: 40)) else {
            Issue.record("not refused as noisy")
            return
        }
        #expect(spread > 15 && standardError > 1.9 && limit == 1)
    }

    @Test func aLevelThatMovesIsRefused() {
        let held = Self.readings(for: 15, levels: [-55]) + Self.readings(from: 15, for: 25, levels: [-63])
        let outcome = Self.outcome(Self.run(Self.named(), Self.adverts(Self.record134, held), until: 40))
        #expect(outcome == .refused(.moved(first: -55, last: -63, limit: 4)))
        #expect(InstallCalibration.Rejection.moved(first: -55, last: -63, limit: 4).description.hasPrefix(
            "the beacon moved: its level went from -55 to -63 dBm"))
    }

    @Test func aCaptureThatEndsEarlyIsTooShort() {
        var calibration = InstallCalibration(settings: Self.named(), at: Instant(seconds: 0))
        for advert in Self.adverts(Self.record134, Self.readings(for: 12, levels: [-60])) { _ = calibration.receive(advert) }
        let actions = calibration.sourceEnded(at: Instant(seconds: 12))
        #expect(actions == [.refused(.tooShort(readings: 24, minimum: 20, seconds: 12, asked: 30))])
        #expect(InstallCalibration.Rejection.tooShort(readings: 24, minimum: 20, seconds: 12, asked: 30).description.hasPrefix(
            "too short: the source ended after 12 s of the 30 s asked, 24 readings"))
    }

    @Test func aBeaconNeverHeardIsSaidAfterTheWait() {
        let other = Self.adverts(Self.otherGovee, Self.readings(for: 40, levels: [-50]))
        let outcome = Self.outcome(Self.run(Self.named(), other, until: 40))
        #expect(outcome == .refused(.notHeard(beacon: Self.govee, seconds: 30)))
    }

    @Test func anOffsetBeyondThirtyDecibelsIsRefused() {
        let adverts = Self.adverts(Self.record134, Self.readings(for: 40, levels: [-100]))
        #expect(Self.outcome(Self.run(Self.named(), adverts, until: 40)) == .refused(.implausible(offset: -38)))
    }
}
