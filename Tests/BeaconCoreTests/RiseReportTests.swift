import Testing
@testable import BeaconCore

/// A worn beacon's rise reports (issue 40, sixth round): the node publishes at once when its last
/// adverts stand 6 dB over its own mean of the 5 s before. Times are the adverts' own (an injected
/// clock): a wristband heard about twice a second by a receiver.
@Suite struct RiseReportTests {
    /// About twice a second from `start`, each advert's RSSI from `level(t)` with a ±2 dB wobble.
    static func adverts(from start: Double, to end: Double, level: (Double) -> Double) -> [(time: Double, rssi: Int)] {
        let wobble = [0.0, 2, -1, 1, -2, 0, 1, -1]
        var out: [(Double, Int)] = []
        var t = start
        var i = 0
        while t < end {
            out.append((t, Int((level(t) + wobble[i % wobble.count]).rounded())))
            t += i % 3 == 0 ? 0.4 : 0.55
            i += 1
        }
        return out
    }

    static func reports(_ adverts: [(time: Double, rssi: Int)], _ p: RiseReport.Parameters = .default) -> [(Double, RiseReport)] {
        var detector = RiseReport.Detector()
        return adverts.compactMap { advert in
            detector.observe(rssi: Double(advert.rssi), at: advert.time, p).map { (advert.time, $0) }
        }
    }

    @Test("a walk into the room: the second advert 10 dB up reports the rise, at every advert (or once a second at most)")
    func moveReports() {
        let walk = Self.adverts(from: 0, to: 20) { $0 < 10 ? -78 : -68 }
        var onceASecond = RiseReport.Parameters.default
        onceASecond.every = 1
        let reports = Self.reports(walk, onceASecond)
        // By default (every 0) a report goes out at every advert while the rise holds, from the same one.
        let everyAdvert = Self.reports(walk)
        #expect(everyAdvert.first?.0 == reports.first?.0)
        #expect(everyAdvert.count > reports.count)
        let firstHigh = walk.firstIndex { $0.time >= 10 }!
        #expect(reports.first?.0 == walk[firstHigh + 1].time)
        let first = reports[0].1
        #expect(first.rise >= 6 && first.rise <= 14)
        #expect(first.level == Double(min(walk[firstHigh].rssi, walk[firstHigh + 1].rssi)))
        // Reports go on while the new level stands over the old mean, never twice within a second.
        for (a, b) in zip(reports, reports.dropFirst()) { #expect(b.0 - a.0 >= 1) }
        // Five seconds on the baseline is the new level: no more reports.
        #expect(reports.allSatisfy { $0.0 < 10 + 5 + 1 + 1e-9 })
    }

    @Test("a body's shadow lowers the receiver and back: no report on the fall, none on a recovery of a few dB")
    func shadowDoesNotReport() {
        // 20 dB down for 4 s, back: the way back is a rise over the shadowed mean, but the mean of the
        // 5 s before still holds the level before the shadow, so it stands under 6 dB.
        let shadow = Self.adverts(from: 0, to: 20) { (8..<12).contains($0) ? -88 : -76 }
        #expect(Self.reports(shadow).allSatisfy { $0.0 >= 12 })
        // A brief, shallow dip never reports.
        let dip = Self.adverts(from: 0, to: 20) { (8..<9).contains($0) ? -81 : -76 }
        #expect(Self.reports(dip).isEmpty)
    }

    @Test("one loud advert among quiet ones (a reflection) is no rise; two in a row are")
    func oneAdvertIsNoRise() {
        var quiet = Self.adverts(from: 0, to: 10) { _ in -80 }
        quiet[12].rssi = -65
        #expect(Self.reports(quiet).isEmpty)
        quiet[13].rssi = -66
        #expect(Self.reports(quiet).map(\.0) == [quiet[13].time])
    }

    @Test("with every 1 s, a beacon flipping between two levels 10 dB apart publishes at most once a second")
    func flippingIsRateLimited() {
        // Pairs of loud adverts between pairs of quiet ones, for a minute.
        let flipping = Self.adverts(from: 0, to: 60) { t in Int(t / 1.0) % 2 == 0 ? -80 : -70 }
        var onceASecond = RiseReport.Parameters.default
        onceASecond.every = 1
        let reports = Self.reports(flipping, onceASecond)
        #expect(reports.count <= 60)
        for (a, b) in zip(reports, reports.dropFirst()) { #expect(b.0 - a.0 >= 1) }
        var slower = RiseReport.Parameters.default
        slower.every = 10
        #expect(Self.reports(flipping, slower).count <= 6)
    }

    @Test("newly heard (nothing in the seconds before) or with rises off: no report")
    func nothingBeforeOrOff() {
        let late = Self.adverts(from: 0, to: 3) { _ in -60 }
        #expect(Self.reports(late).isEmpty)
        var off = RiseReport.Parameters.default
        off.rise = 0
        #expect(Self.reports(Self.adverts(from: 0, to: 20) { $0 < 10 ? -78 : -68 }, off).isEmpty)
    }

    @Test("the track: marked worn it publishes the rise with the measurement; not marked, it publishes as before")
    func trackMarkedWorn() {
        let walk = Self.adverts(from: 0, to: 20) { $0 < 10 ? -78 : -68 }
        var worn = BeaconTrack(parameters: .default, worn: true)
        var plain = BeaconTrack(parameters: .default)
        var wornPublished: [Double] = []
        var plainPublished: [Double] = []
        var rises: [TrackUpdate] = []
        for advert in walk {
            let time = Instant(seconds: advert.time)
            let w = worn.observe(rssi: advert.rssi, measuredPower: -59, at: time)
            let u = plain.observe(rssi: advert.rssi, measuredPower: -59, at: time)
            #expect(u.rise == nil)
            if w.shouldPublish { wornPublished.append(advert.time) }
            if u.shouldPublish { plainPublished.append(advert.time) }
            if w.rise != nil { rises.append(w) }
            // Everything but the rise is the same measurement.
            #expect(w.rssiFiltered == u.rssiFiltered && w.distance == u.distance && w.proximity == u.proximity)
        }
        let firstHigh = walk.firstIndex { $0.time >= 10 }!
        #expect(wornPublished.contains(walk[firstHigh + 1].time))
        #expect(rises.allSatisfy { $0.shouldPublish })
        #expect(!rises.isEmpty)
        // The worn track publishes what the plain one does, and its rises besides.
        #expect(Set(plainPublished).isSubset(of: Set(wornPublished)))
        let firstPlainAfter = plainPublished.first { $0 >= 10 } ?? .infinity
        #expect(wornPublished.first { $0 >= 10 }! <= firstPlainAfter)
    }
}
