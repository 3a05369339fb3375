import BeaconCore
import BluetoothHCI

/// How a radio source is doing, for the agent's telemetry: whether it scans, since when, how often
/// it had to be set up again, and the last thing that went wrong. Captures and the simulator have none.
public struct RadioStatus: Hashable, Sendable {
    public enum State: String, Hashable, Sendable {
        /// Set up and scanning.
        case scanning
        /// Not scanning: waiting to reopen and set up the controller again.
        case retrying
    }

    public var state: State
    /// When `state` began (the source's clock).
    public var since: Instant
    /// How many times the controller was set up again after the first time (a device reopened, a
    /// scan another program switched off, a reset).
    public var reopens: Int
    /// The last error or cause of a set-up, nil while nothing went wrong.
    public var lastError: String?
    /// How the node beacon's set-up ended at the last set-up; nil when none is asked for.
    public var advertising: AdvertisingOutcome?

    public init(state: State, since: Instant, reopens: Int = 0, lastError: String? = nil, advertising: AdvertisingOutcome? = nil) {
        self.state = state
        self.since = since
        self.reopens = reopens
        self.lastError = lastError
        self.advertising = advertising
    }

    /// Adds `radio`, `radioSince`, `radioReopens`, `radioError` (when there is one) and
    /// `nodeBeacon` (when one is asked for) to a telemetry object.
    public func write(to json: inout JSONObjectWriter) {
        json.add("radio", state.rawValue)
        json.add("radioSince", ISO8601Timestamp.string(from: since))
        json.add("radioReopens", reopens)
        if let lastError { json.add("radioError", lastError) }
        if let advertising { json.add("nodeBeacon", advertising.stateName) }
    }
}

/// A line for the log about the radio: a warning with the cause when it stops, info when it hears again.
public struct RadioNotice: Hashable, Sendable {
    public enum Level: Hashable, Sendable {
        case info
        case warning
    }

    public let level: Level
    public let message: String

    public init(_ level: Level, _ message: String) {
        self.level = level
        self.message = message
    }
}
