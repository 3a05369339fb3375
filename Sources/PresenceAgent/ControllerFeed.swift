import BeaconCore
import BluetoothHCI
import Timekeeping

/// A controller on a serial line or an HCI socket, kept scanning whatever the host does.
///
/// When the device vanishes (a dongle unplugged, an adapter unregistered), goes down (powered off),
/// or stops scanning for a reason not the agent's own (`ScanWatch`: another program's reset or
/// end of discovery, a controller that restarted, reports stopping), the feed closes it and sets it
/// up again through one path: reopen, with a capped exponential backoff while that fails. Each
/// stop is a warning with its cause, each failed attempt a warning with the next delay, and the
/// first report heard again an info line (`takeNotices`); `radio` carries the state for telemetry.
///
/// With an `AdvertisingRequest` every set-up also advertises the node beacon. Its outcome is said
/// once (an info line when it first advertises, a warning when the controller first refuses), not
/// at every set-up, and rides in `radio` for the info and telemetry; scanning goes on either way.
final class ControllerFeed: AdvertisementFeed {
    enum State: Equatable {
        case scanning(ControllerSetup.ScanMode)
        /// Waiting to reopen; the error that closed it.
        case retrying(at: Double, error: String)
    }

    private let open: () throws(HCITransportError) -> any HCITransport
    private let configureController: Bool
    private let clock: any ServiceClock
    private let watchSettings: ScanWatch.Settings
    private let advertising: AdvertisingRequest?
    /// The node beacon's outcomes already said in the log (advertising, refused): each once.
    private var advertisingSaid: (advertising: Bool, refused: Bool) = (false, false)
    private var session: ControllerSession?
    private var watch: ScanWatch
    private var decoder = AdvertisementDecoder()
    private(set) var state: State = .retrying(at: 0, error: "not opened yet")
    private(set) var failures = 0
    private(set) var radio: RadioStatus?
    private var notices: [RadioNotice] = []
    /// Set up again after a stop: the first report heard then is said in the log.
    private var awaitingFirstReport = false
    private var lastDeviceCheck = 0.0
    /// When the last read that brought events ended, and the events a second it brought since the
    /// one before.
    private var lastRead = (end: -Double.infinity, rate: 0.0)
    /// Seconds between two reads of a lightly loaded radio. Meanwhile the kernel holds what comes
    /// (a socket's receive buffer, about 200 KB, holds some 250 events; a serial line's buffers,
    /// 64 KB): 0.05 s at a radio's 2,700 reports a second is 135 events.
    let readInterval = 0.05
    /// A radio is lightly loaded while it brings at most this many events per `readInterval`;
    /// above that it is read as fast as it delivers.
    let lightLoad = 32
    /// Reads at most per round: a socket gives one event a read.
    let readsPerRound = 256
    private var lastWatchRestart = -Double.infinity
    /// Reopen delays: 1, 2, 4, … capped here.
    let maximumBackoff = 30.0
    /// Seconds between checks that the device is still up (an adapter powered off stays silent).
    let deviceCheckInterval = 2.0
    /// At most one set-up a this many seconds for a `ScanWatch` cause, so a program that keeps
    /// switching the scan off is not fought at full speed.
    let watchRestartInterval = 10.0

    init(
        open: @escaping () throws(HCITransportError) -> any HCITransport, configureController: Bool,
        clock: any ServiceClock, watch: ScanWatch.Settings = ScanWatch.Settings(), advertising: AdvertisingRequest? = nil
    ) throws(FeedError) {
        self.open = open
        self.advertising = advertising
        self.configureController = configureController
        self.clock = clock
        self.watchSettings = watch
        self.watch = ScanWatch(settings: watch, startedAt: clock.now().seconds)
        // The first open must work: a wrong path or missing permission is a configuration error
        // to report at start, not something to retry forever.
        do {
            try connect()
        } catch {
            throw FeedError(error.description)
        }
    }

    var now: Instant { clock.now() }
    var malformedEventCount: Int { decoder.malformedEventCount }

    func takeNotices() -> [RadioNotice] {
        defer { notices.removeAll() }
        return notices
    }

    func poll(timeout: Double, _ body: (DecodedAdvertisement) -> Void) throws(FeedError) -> Bool {
        guard let session else {
            if case .retrying(let at, _) = state {
                let wait = at - clock.now().seconds
                if wait > 0 {
                    clock.sleep(for: min(wait, timeout))
                    return true
                }
            }
            let reopens = (radio?.reopens ?? 0) + 1
            do {
                try connect()
                radio?.reopens = reopens
                if case .scanning(let mode) = state {
                    notices.append(RadioNotice(.info, "the controller is set up again and scans (\(mode.rawValue))"))
                }
            } catch {
                scheduleRetry(error.description)
            }
            return true
        }
        // A lightly loaded radio is read at most every `readInterval`, all that is ready at once:
        // the CPU of an agent at rest is the wake-up per read (one advertisement each), not the work.
        if lastRead.rate * readInterval <= Double(lightLoad) {
            let wait = lastRead.end + readInterval - clock.now().seconds
            clock.sleep(for: min(wait, timeout))
        }
        do {
            var heard = 0
            // Command Complete and Hardware Error events, for the watch after the read's commands:
            // another program's command and its answer often come in one read, the command first.
            var answers: [[UInt8]] = []
            let events = try session.readEvents(timeout: timeout, reads: readsPerRound) { event in
                if let code = event.first, code == 0x0E || code == 0x10 { answers.append(Array(event.prefix(6))) }
                decoder.decode(eventPacket: event, at: clock.now()) {
                    heard += 1
                    body($0)
                }
            }
            let time = clock.now().seconds
            if events > 0 { lastRead = (time, Double(events) / max(time - lastRead.end, 0.001)) }
            for command in session.takeForeignCommands() { watch.foreignCommand(command, at: time) }
            for answer in answers { watch.event(answer[...], at: time) }
            watch.heard(heard, at: time)
            if heard > 0, awaitingFirstReport {
                awaitingFirstReport = false
                notices.append(RadioNotice(.info, "hearing advertisements again"))
            }
            if time - lastDeviceCheck >= deviceCheckInterval {
                lastDeviceCheck = time
                try session.transport.checkDevice()
            }
            if let cause = watch.due(at: time) {
                stopScanning(because: cause.description, retryAt: max(time, lastWatchRestart + watchRestartInterval))
                lastWatchRestart = max(time, lastWatchRestart + watchRestartInterval)
            }
        } catch {
            stopScanning(because: error.description, retryAt: nil)
        }
        return true
    }

    func close() {
        guard let session else { return }
        session.stop(now: SystemClock.monotonic)
        session.transport.close()
        self.session = nil
    }

    private func connect() throws(ControllerSessionError) {
        let transport: any HCITransport
        do {
            transport = try open()
        } catch {
            throw .transport(error)
        }
        let session = ControllerSession(transport: transport)
        do {
            let setup = ControllerSetup(configureController: configureController, advertising: advertising)
            let mode = try session.start(setup, now: SystemClock.monotonic)
            self.session = session
            state = .scanning(mode)
            failures = 0
            let time = clock.now().seconds
            watch = ScanWatch(settings: watchSettings, startedAt: time)
            lastDeviceCheck = time
            radio = RadioStatus(state: .scanning, since: Instant(seconds: time), reopens: radio?.reopens ?? 0, lastError: radio?.lastError,
                                advertising: session.advertising)
            if let note = transport.openingNote { notices.append(RadioNotice(.warning, note)) }
            // Which command family the controller took (`ControllerSetup`), said once at start.
            if radio?.lastError == nil { notices.append(RadioNotice(.info, "the controller scans (\(mode.rawValue))")) }
            noteAdvertising(session.advertising, mode: mode)
        } catch {
            transport.close()
            throw error
        }
    }

    private func noteAdvertising(_ outcome: AdvertisingOutcome?, mode: ControllerSetup.ScanMode) {
        guard let request = advertising, let outcome else { return }
        switch outcome {
        case .advertising(let transmitPower, let measuredPower):
            guard !advertisingSaid.advertising else { return }
            advertisingSaid.advertising = true
            let power = transmitPower.map { "at \($0) dBm" } ?? "at a power the controller does not say (\(AdvertisingRequest.assumedTransmitPower) dBm assumed)"
            let interval = JSONObjectWriter.number(Double(request.intervalUnits) * 0.000625, decimals: 3)
            notices.append(RadioNotice(.info, "the controller advertises the node beacon \(request.beacon.id) every \(interval) s "
                + "(\(mode.rawValue)), \(power), measured power \(measuredPower) dBm"))
        case .refused(let error):
            guard !advertisingSaid.refused else { return }
            advertisingSaid.refused = true
            notices.append(RadioNotice(.warning, "the controller refuses to advertise the node beacon while it scans (\(error)); "
                + "scanning goes on without it: other nodes will not hear this one (nodeBeacon.enabled: false stops asking)"))
        }
    }

    /// Closes a session that stopped scanning and says why; the next poll reopens it (at `retryAt`,
    /// or after the backoff when the device failed).
    private func stopScanning(because cause: String, retryAt: Double?) {
        session?.transport.close()
        session = nil
        awaitingFirstReport = true
        let time = clock.now().seconds
        radio = RadioStatus(state: .retrying, since: Instant(seconds: time), reopens: radio?.reopens ?? 0, lastError: cause)
        if let retryAt {
            state = .retrying(at: retryAt, error: cause)
            notices.append(RadioNotice(.warning, "the controller stopped scanning: \(cause); setting it up again"))
        } else {
            let delay = nextDelay()
            state = .retrying(at: time + delay, error: cause)
            notices.append(RadioNotice(.warning, "the controller stopped scanning: \(cause); reopening in \(Int(delay)) s"))
        }
    }

    /// A reopen that failed: try again after the backoff.
    private func scheduleRetry(_ error: String) {
        let delay = nextDelay()
        state = .retrying(at: clock.now().seconds + delay, error: error)
        radio?.lastError = error
        notices.append(RadioNotice(.warning, "cannot set the controller up (attempt \(failures)): \(error); retrying in \(Int(delay)) s"))
    }

    private func nextDelay() -> Double {
        failures += 1
        return min(maximumBackoff, Double(1 << min(failures - 1, 10)))
    }
}
