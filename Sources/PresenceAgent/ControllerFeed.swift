import BeaconCore
import BluetoothHCI

/// A controller on a serial line or an HCI socket. When the device vanishes (a dongle unplugged,
/// an adapter reset) the feed reports it and reopens it with a capped exponential backoff, then
/// sets it up again, so the agent keeps running and resumes scanning by itself.
final class ControllerFeed: AdvertisementFeed {
    enum State: Equatable {
        case scanning(ControllerSetup.ScanMode)
        /// Waiting to reopen; the error that closed it.
        case retrying(at: Double, error: String)
    }

    private let open: () throws(HCITransportError) -> any HCITransport
    private let configureController: Bool
    private let wallClock: @Sendable () -> Double
    private var session: ControllerSession?
    private var decoder = AdvertisementDecoder()
    private(set) var state: State = .retrying(at: 0, error: "not opened yet")
    private(set) var failures = 0
    /// Reopen delays: 1, 2, 4, … capped here.
    let maximumBackoff = 30.0

    init(
        open: @escaping () throws(HCITransportError) -> any HCITransport, configureController: Bool,
        wallClock: @escaping @Sendable () -> Double
    ) throws(FeedError) {
        self.open = open
        self.configureController = configureController
        self.wallClock = wallClock
        // The first open must work: a wrong path or missing permission is a configuration error
        // to report at start, not something to retry forever.
        do {
            try connect()
        } catch {
            throw FeedError(error.description)
        }
    }

    var now: Instant { Instant(seconds: wallClock()) }
    var malformedEventCount: Int { decoder.malformedEventCount }

    func poll(timeout: Double, _ body: (DecodedAdvertisement) -> Void) throws(FeedError) -> Bool {
        guard let session else {
            if case .retrying(let at, _) = state {
                let wait = at - wallClock()
                if wait > 0 {
                    WallClock.pause(min(wait, timeout))
                    return true
                }
            }
            do {
                try connect()
            } catch {
                scheduleRetry(error.description)
            }
            return true
        }
        do {
            try session.readEvents(timeout: timeout) { event in
                decoder.decode(eventPacket: event, at: Instant(seconds: wallClock()), body)
            }
        } catch {
            session.transport.close()
            self.session = nil
            scheduleRetry(error.description)
        }
        return true
    }

    func close() {
        guard let session else { return }
        session.stop(now: WallClock.monotonic)
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
            let mode = try session.start(ControllerSetup(configureController: configureController), now: WallClock.monotonic)
            self.session = session
            state = .scanning(mode)
            failures = 0
        } catch {
            transport.close()
            throw error
        }
    }

    private func scheduleRetry(_ error: String) {
        failures += 1
        let delay = min(maximumBackoff, Double(1 << min(failures - 1, 10)))
        state = .retrying(at: wallClock() + delay, error: error)
    }
}
