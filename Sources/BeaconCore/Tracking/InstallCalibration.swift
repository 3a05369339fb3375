/// `presence-agent calibrate`'s core: a known beacon held 1 m from the node for a while gives the
/// node's `rssiOffset`, for a site whose nodes cannot hear each other's node beacons.
///
/// Fed decoded advertisements and the source's time, it answers with actions: lines to say, then
/// one result (a reference, or why the run is refused). It picks the beacon (the one named, or the
/// loudest that states its 1 m power), collects its readings for `duration` seconds, and refuses a
/// run that is too short, too noisy or whose level moved. The 1 m level is the mean of the readings
/// in dB, what the node's filter settles to for a beacon at rest; the offset is that level less the
/// power the node would use for the beacon (configured, else advertised, else the default), so that
/// after calibration the node reads that beacon at 1 m as 1 m.
public struct InstallCalibration: Sendable {
    /// How a run is made and judged; the defaults are `presence-agent calibrate`'s.
    public struct Settings: Sendable, Equatable {
        /// The beacon to calibrate with; nil takes the loudest beacon that states its 1 m power,
        /// heard within `choosingTime`.
        public var beacon: BeaconID?
        /// Seconds of readings collected at 1 m. Longer averages more fading out.
        public var duration: Double = 30
        /// Seconds spent listening for the loudest beacon before choosing it.
        public var choosingTime: Double = 5
        /// Seconds to wait for a beacon (the one named, or any that states its power) before giving up.
        public var waitForBeacon: Double = 30
        /// Fewest readings a run needs.
        public var minimumReadings = 20
        /// Largest standard error of the mean level, dB: beyond it the offset is not known to a dB.
        public var maximumStandardError = 1.0
        /// Largest change of the mean level between the run's first and last thirds, dB: beyond it
        /// the beacon moved or something came between.
        public var maximumDrift = 4.0
        /// Seconds between progress lines.
        public var progressInterval = 5.0
        /// 1 m powers configured for known beacons (`beacons[].measuredPower`): they win over the
        /// advertised one, as in the agent.
        public var configuredPowers: [BeaconID: Int] = [:]
        /// P₁ for a beacon that neither states nor is configured with one (`tracking.measuredPower`).
        public var defaultMeasuredPower = DistanceModel.default.defaultMeasuredPower

        public init() {}
    }

    /// Where the 1 m power the offset is taken against came from.
    public enum PowerSource: String, Sendable, Hashable {
        /// `beacons[].measuredPower` of the known beacon.
        case configured
        /// The power the beacon states in its advert.
        case advertised
        /// The node's default (`tracking.measuredPower`): the beacon states none.
        case nodeDefault
    }

    /// A calibration that passed: what `calibrate` prints and stores.
    public struct Reference: Sendable, Hashable {
        public var beacon: BeaconID
        /// The mean reading at 1 m, dBm.
        public var rssi: Double
        /// The beacon's 1 m power the offset is taken against, dBm, and where it came from.
        public var measuredPower: Double
        public var powerSource: PowerSource
        /// `rssi − measuredPower`, dB: the node's `rssiOffset` (negative: it hears weaker than the
        /// beacon's reference receiver).
        public var rssiOffset: Double
        public var readings: Int
        /// The mean level's standard error, dB.
        public var standardError: Double
        /// Seconds the readings span.
        public var seconds: Double
        /// When the run ended (the source's time).
        public var at: Instant

        public init(
            beacon: BeaconID, rssi: Double, measuredPower: Double, powerSource: PowerSource, rssiOffset: Double,
            readings: Int, standardError: Double, seconds: Double, at: Instant
        ) {
            self.beacon = beacon
            self.rssi = rssi
            self.measuredPower = measuredPower
            self.powerSource = powerSource
            self.rssiOffset = rssiOffset
            self.readings = readings
            self.standardError = standardError
            self.seconds = seconds
            self.at = at
        }
    }

    /// Why a run is refused; `description` says it to the person holding the beacon.
    public enum Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        /// No beacon (the named one, or any stating its power) heard within the wait.
        case notHeard(beacon: BeaconID?, seconds: Double)
        /// Fewer readings than asked, or the source ended before the run did.
        case tooShort(readings: Int, minimum: Int, seconds: Double, asked: Double)
        /// The mean level is not known to `maximumStandardError`.
        case tooNoisy(standardError: Double, spread: Double, limit: Double)
        /// The level of the last third differs from the first's by more than `maximumDrift`.
        case moved(first: Double, last: Double, limit: Double)
        /// The offset falls outside what `rssiOffset` accepts.
        case implausible(offset: Double)

        public var description: String {
            switch self {
            case .notHeard(let beacon?, let seconds):
                return "\(beacon) was not heard in \(Self.format(seconds, 0)) s: is it on, and is this the source it is near?"
            case .notHeard(nil, let seconds):
                return "no iBeacon, AltBeacon or Eddystone stating its 1 m power was heard in \(Self.format(seconds, 0)) s: "
                    + "switch the beacon on, or name one with --beacon"
            case .tooShort(let readings, let minimum, let seconds, let asked):
                let ended = seconds < asked - 0.5 ? "the source ended after \(Self.format(seconds, 1)) s of the \(Self.format(asked, 0)) s asked, " : ""
                return "too short: \(ended)\(readings) readings, \(minimum) needed: keep the beacon near and on, or give a longer --duration"
            case .tooNoisy(let standardError, let spread, let limit):
                return "too noisy: the readings spread over \(Self.format(spread, 1)) dB (standard deviation), so the 1 m level "
                    + "is known only to ±\(Self.format(standardError, 1)) dB (at most ±\(Self.format(limit, 1))): hold it still, "
                    + "in line of sight, away from people moving, or give a longer --duration"
            case .moved(let first, let last, let limit):
                return "the beacon moved: its level went from \(Self.format(first, 1)) to \(Self.format(last, 1)) dBm "
                    + "between the first and last third of the run (more than \(Self.format(limit, 0)) dB): hold it still at 1 m and run again"
            case .implausible(let offset):
                return "an offset of \(Self.format(offset, 1)) dB is outside −30…30: is the beacon at 1 m, and its stated power right?"
            }
        }

        static func format(_ value: Double, _ decimals: Int) -> String { JSONObjectWriter.number(value, decimals: decimals) }
    }

    /// What the command does next.
    public enum Action: Sendable, Hashable {
        /// A line for the person holding the beacon.
        case say(String)
        /// The run passed: print and store it. The run is over.
        case finished(Reference)
        /// The run is refused, with why. The run is over.
        case refused(Rejection)
    }

    public let settings: Settings
    private let start: Instant
    /// The beacon chosen, its power and where it came from; nil while choosing.
    private var chosen: (id: BeaconID, power: Double, source: PowerSource)?
    /// When collection began (the first reading of the chosen beacon).
    private var collectingSince: Instant?
    private var readings: [(time: Instant, rssi: Double)] = []
    /// While choosing: each candidate's readings and the power it states.
    private var candidates: [BeaconID: (sum: Double, count: Int, power: Double, source: PowerSource)] = [:]
    private var firstCandidateAt: Instant?
    private var nextProgress: Instant?
    public private(set) var isOver = false

    public init(settings: Settings, at start: Instant) {
        self.settings = settings
        self.start = start
    }

    /// The first lines: what to do, and what is listened for.
    public func opening() -> [Action] {
        let which = settings.beacon.map { "Listening for \($0)" }
            ?? "Listening for the loudest iBeacon, AltBeacon or Eddystone that states its 1 m power"
        return [
            .say("Hold the beacon 1 m from this node's Bluetooth adapter, in line of sight, and keep it still for "
                 + "\(Rejection.format(settings.duration, 0)) s."),
            .say("\(which)."),
        ]
    }

    /// One advertisement from the source.
    public mutating func receive(_ advertisement: DecodedAdvertisement) -> [Action] {
        guard !isOver, let rssi = advertisement.report.rssi.map(Int.init) else { return [] }
        let id = advertisement.beaconID
        let time = advertisement.time
        if let chosen {
            guard id == chosen.id else { return tick(at: time) }
            // A reading at or after the run's end ends it, uncounted.
            if let since = collectingSince, time.since(since) >= settings.duration { return tick(at: time) }
            if collectingSince == nil {
                collectingSince = time
                nextProgress = time + settings.progressInterval
            }
            readings.append((time, Double(rssi)))
            return tick(at: time)
        }
        let stated = advertisement.beacon?.measuredPower
        let power: (Double, PowerSource)?
        if let configured = settings.configuredPowers[id] {
            power = (Double(configured), .configured)
        } else if let stated {
            power = (Double(stated), .advertised)
        } else {
            power = nil
        }
        if let named = settings.beacon {
            guard id == named else { return tick(at: time) }
            let (value, source) = power ?? (settings.defaultMeasuredPower, .nodeDefault)
            return choose(id, power: value, source: source, because: "the beacon named", at: time) + receive(advertisement)
        }
        // The loudest is chosen among beacons that state a power: a phone or a tag without one
        // cannot say what 1 m should read.
        guard let (value, source) = power else { return tick(at: time) }
        if firstCandidateAt == nil { firstCandidateAt = time }
        var entry = candidates[id] ?? (0, 0, value, source)
        entry.sum += Double(rssi)
        entry.count += 1
        candidates[id] = entry
        return tick(at: time)
    }

    /// Time passes (the source's time): progress lines, the choice, the end of the run.
    public mutating func tick(at time: Instant) -> [Action] {
        guard !isOver else { return [] }
        guard chosen != nil else { return chooseIfDue(at: time) }
        guard let since = collectingSince else {
            return time.since(start) >= settings.waitForBeacon ? refuse(.notHeard(beacon: chosen?.id, seconds: time.since(start))) : []
        }
        if time.since(since) >= settings.duration { return finish(at: time) }
        var actions: [Action] = []
        if let next = nextProgress, time >= next {
            let mean = readings.map(\.rssi).reduce(0, +) / Double(max(readings.count, 1))
            actions.append(.say("\(Rejection.format(next.since(since), 0)) s of \(Rejection.format(settings.duration, 0)): "
                                + "\(readings.count) readings, mean \(Rejection.format(mean, 1)) dBm"))
            nextProgress = next + settings.progressInterval
        }
        return actions
    }

    /// The source ended (a capture's end) before the run did: it is too short, whatever it holds.
    public mutating func sourceEnded(at time: Instant) -> [Action] {
        guard !isOver else { return [] }
        guard chosen != nil, let since = collectingSince else {
            return refuse(.notHeard(beacon: chosen?.id ?? settings.beacon, seconds: time.since(start)))
        }
        return refuse(.tooShort(readings: readings.count, minimum: settings.minimumReadings, seconds: time.since(since),
                                asked: settings.duration))
    }

    private mutating func chooseIfDue(at time: Instant) -> [Action] {
        if let first = firstCandidateAt, time.since(first) >= settings.choosingTime {
            // Loudest by mean reading; ties by id, so a run is repeatable.
            let ranked = candidates.map { (id: $0.key, mean: $0.value.sum / Double($0.value.count), entry: $0.value) }
                .sorted { $0.mean != $1.mean ? $0.mean > $1.mean : $0.id < $1.id }
            let best = ranked[0]
            var reason = "the loudest heard, \(Rejection.format(best.mean, 1)) dBm"
            if ranked.count > 1 {
                let next = ranked[1]
                reason += "; next \(next.id) at \(Rejection.format(next.mean, 1)) dBm"
                if best.mean - next.mean < 6 { reason += ", close: name the one you hold with --beacon if it is not this one" }
            }
            candidates = [:]
            return choose(best.id, power: best.entry.power, source: best.entry.source, because: reason, at: time)
        }
        if time.since(start) >= settings.waitForBeacon { return refuse(.notHeard(beacon: settings.beacon, seconds: time.since(start))) }
        return []
    }

    private mutating func choose(_ id: BeaconID, power: Double, source: PowerSource, because reason: String, at time: Instant) -> [Action] {
        chosen = (id, power, source)
        nextProgress = nil
        let stated = switch source {
        case .configured: "configured 1 m power \(Rejection.format(power, 0)) dBm"
        case .advertised: "states \(Rejection.format(power, 0)) dBm at 1 m"
        case .nodeDefault: "states no 1 m power: the node's default \(Rejection.format(power, 0)) dBm is used"
        }
        return [.say("Calibrating with \(id) (\(stated); \(reason)). Collecting for \(Rejection.format(settings.duration, 0)) s.")]
    }

    private mutating func finish(at time: Instant) -> [Action] {
        guard let chosen, let since = collectingSince else { return [] }
        let span = min(time.since(since), settings.duration)
        switch Self.measure(readings.map(\.rssi), settings: settings, seconds: span) {
        case .failure(let rejection):
            return refuse(rejection)
        case .success(let level):
            let offset = level.mean - chosen.power
            guard NodeSettings.Limits.rssiOffset.contains(offset) else { return refuse(.implausible(offset: offset)) }
            isOver = true
            return [.finished(Reference(
                beacon: chosen.id, rssi: level.mean, measuredPower: chosen.power, powerSource: chosen.source,
                rssiOffset: (offset * 10).rounded() / 10, readings: readings.count, standardError: level.standardError,
                seconds: span, at: time))]
        }
    }

    private mutating func refuse(_ rejection: Rejection) -> [Action] {
        isOver = true
        return [.refused(rejection)]
    }

    /// The 1 m level of one run's readings (dBm, in time order), judged as `calibrate` judges it:
    /// enough readings, a mean known to `maximumStandardError`, no drift beyond `maximumDrift`.
    /// `seconds` is how long the run lasted.
    public static func measure(
        _ readings: [Double], settings: Settings, seconds: Double
    ) -> Result<(mean: Double, standardError: Double), Rejection> {
        let count = readings.count
        guard count >= max(settings.minimumReadings, 3) else {
            return .failure(.tooShort(readings: count, minimum: settings.minimumReadings, seconds: seconds, asked: seconds))
        }
        let mean = readings.reduce(0, +) / Double(count)
        let variance = readings.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(count - 1)
        let deviation = variance.squareRoot()
        let standardError = deviation / Double(count).squareRoot()
        guard standardError <= settings.maximumStandardError else {
            return .failure(.tooNoisy(standardError: standardError, spread: deviation, limit: settings.maximumStandardError))
        }
        let third = count / 3
        let first = readings.prefix(third).reduce(0, +) / Double(third)
        let last = readings.suffix(third).reduce(0, +) / Double(third)
        guard abs(last - first) <= settings.maximumDrift else {
            return .failure(.moved(first: first, last: last, limit: settings.maximumDrift))
        }
        return .success((mean, standardError))
    }
}
