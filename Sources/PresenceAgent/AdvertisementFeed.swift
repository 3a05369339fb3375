import BeaconCore
import BluetoothHCI
import Timekeeping

/// Decoded advertisements from any source, pulled by the caller's loop: a capture replayed at its
/// recorded pace (or faster), a controller on a serial line or socket, or the simulator.
///
/// Each advertisement carries the time the source gives it: the capture's timestamps, the wall
/// clock for a radio, simulated time for the simulator. The agent's clock follows that time, so a
/// replay behaves as the recording did (docs/Semantics.md, "Replay").
public protocol AdvertisementFeed: AnyObject {
    /// Delivers what is due within about `timeout` seconds. Returns false once the feed has ended
    /// (a capture or a simulation with a duration ran out).
    func poll(timeout: Double, _ body: (DecodedAdvertisement) -> Void) throws(FeedError) -> Bool

    /// Stops scanning and releases the device.
    func close()

    /// The source's current time: where a replay has got to, or the wall clock.
    var now: Instant { get }

    /// Advertising events that could not be decoded, and why the last one failed.
    var malformedEventCount: Int { get }

    /// A radio's state for telemetry; nil for captures and the simulator.
    var radio: RadioStatus? { get }

    /// What happened to the radio since the last call, for the log: stops with their cause,
    /// retries, hearing again.
    func takeNotices() -> [RadioNotice]
}

extension AdvertisementFeed {
    public var radio: RadioStatus? { nil }
    public func takeNotices() -> [RadioNotice] { [] }
}

public struct FeedError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Options every source may need.
public struct FeedOptions: Sendable {
    /// Replay pace for captures and the simulator: 1 is real time, 10 ten times faster, 0 as fast as
    /// possible.
    public var speed: Double = 1
    /// The node whose view the simulator gives; nil for the scenario's first node.
    public var simulatedNode: String?
    /// How long a simulation runs, in simulated seconds; nil runs until stopped.
    public var simulationDuration: Double?
    /// The clock a source reads and waits on: a radio's time, the pace of a replay or of the
    /// simulator; injected so tests move it by hand.
    public var clock: any ServiceClock = SystemClock()
    /// The node beacon a radio advertises while it scans; nil advertises nothing.
    public var advertising: AdvertisingRequest?

    public init() {}
}

/// Opens the feed a `--source` names.
public enum AdvertisementFeeds {
    /// A replay (a capture or the simulator) hands back control at least once per this many
    /// seconds of its own time, at every speed: a poll waits at most this long divided by the
    /// speed. So the agent's clock ticks through a stretch with no advertisements as it would live
    /// (it ticks when a second has passed since the last tick, so at most 1.5 s apart), instead of
    /// jumping to the next advertisement.
    static let sourceSecondsPerPoll = 0.5

    public static func open(_ source: SourceSpecification, options: FeedOptions) throws(FeedError) -> any AdvertisementFeed {
        switch source {
        case .btsnoop(let path):
            return try CaptureFeed(path: path, speed: options.speed, clock: options.clock)
        case .simulate(let scenarioPath):
            return try SimulatorFeed(scenarioPath: scenarioPath, options: options)
        case .uart(let settings):
            return try ControllerFeed(open: { () throws(HCITransportError) in try UARTTransport(settings: settings) },
                                      configureController: true, clock: options.clock, advertising: options.advertising)
        case .hciSocket(let deviceID):
            return try ControllerFeed(open: { () throws(HCITransportError) in try HCISocketTransport(deviceID: deviceID) },
                                      configureController: false, clock: options.clock, advertising: options.advertising)
        }
    }
}
