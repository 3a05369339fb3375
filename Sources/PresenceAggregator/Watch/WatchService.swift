import BeaconCore
import Logging
import MQTTClient
import ServiceLifecycle

/// `presence-aggregator watch` without its flags: subscribes to a deployment's topics, feeds
/// every message to a `WatchState` and writes what `WatchRenderer` makes of it.
///
/// - On a terminal it redraws in place (ANSI: cursor home, clear to end of line and of screen) at
///   most four times a second when something changed, and once a second for the ages.
/// - Otherwise it writes plain snapshots, one per change at most once a second, separated by a
///   blank line; the first once the retained state has arrived.
/// - With `once`, it writes one plain snapshot once the retained state has arrived and returns:
///   retained messages come right after each subscription, so it waits until none has come for
///   half a second (at most 3 s after subscribing).
/// - It only reads: no last will, no publication, a client id of its own.
public final class WatchService: Service, Sendable {
    public struct Options: Sendable {
        public var connection: MQTTConnectionOptions
        public var topics: TopicScheme
        /// The first line's title, e.g. `presence @ mqtt://broker.lan:1883`.
        public var title: String
        /// Redraw in place (a terminal) rather than print snapshots.
        public var terminal: Bool
        public var once: Bool
        /// Stop after this many seconds; nil: until stopped.
        public var duration: Double?
        /// Seconds to wait for the first connection before giving up.
        public var connectTimeout: Double
        /// The configuration's motion sensors, shown per room (default none).
        public var motion: [MotionSensorSettings] = []

        public init(connection: MQTTConnectionOptions, topics: TopicScheme, title: String, terminal: Bool,
                    once: Bool = false, duration: Double? = nil, connectTimeout: Double = 10) {
            self.connection = connection
            self.topics = topics
            self.title = title
            self.terminal = terminal
            self.once = once
            self.duration = duration
            self.connectTimeout = connectTimeout
        }
    }

    /// Connection options for a reader: the configuration's broker, account and CA, the given
    /// client id (never the aggregator's: the broker would drop one of the two) and no last will.
    public static func connectionOptions(for configuration: AggregatorConfiguration, clientID: String) -> MQTTConnectionOptions {
        var options = MQTTConnectionOptions(host: configuration.broker.host, port: configuration.broker.port, clientID: clientID)
        if let username = configuration.username {
            options.credentials = MQTTCredentials(username: username, password: configuration.password)
        }
        if configuration.broker.usesTLS {
            options.tls = MQTTTLSConfiguration(
                caFile: configuration.caFile ?? AggregatorConfiguration.defaultCAFile,
                certificateFile: configuration.certificateFile, keyFile: configuration.keyFile)
        }
        return options
    }

    /// The topic filters watched (docs/MQTT.md).
    public static func filters(_ topics: TopicScheme) -> [String] {
        let root = topics.root
        return [
            "\(root)/aggregator/status", "\(root)/nodes/+/status", "\(root)/nodes/+/info", "\(root)/rooms/+",
            "\(root)/locations/#", "\(root)/beacons/+/+", "\(root)/events", "\(root)/aggregator/nodes/+",
            "\(root)/calibration",
        ]
    }

    private enum Input: Sendable {
        case message(MQTTMessage)
        case connection(MQTTConnectionEvent)
        case tick
        case shutdown
    }

    private let options: Options
    private let logger: Logger
    private let output: @Sendable (String) -> Void
    private let screenSize: @Sendable () -> (columns: Int, rows: Int)
    private let now: @Sendable () -> Instant

    /// - Parameters:
    ///   - options: the connection, the topic root, how to draw (terminal or snapshots) and how long to run.
    ///   - logger: where the service logs.
    ///   - output: writes text as it is (no newline added).
    ///   - screenSize: the terminal's size, asked before each frame.
    ///   - now: wall time in Unix seconds (ages and the header's clock).
    public init(options: Options, logger: Logger, output: @escaping @Sendable (String) -> Void,
                screenSize: @escaping @Sendable () -> (columns: Int, rows: Int), now: @escaping @Sendable () -> Instant) {
        self.options = options
        self.logger = logger
        self.output = output
        self.screenSize = screenSize
        self.now = now
    }

    public func run() async throws {
        let connection = try MQTTConnection(options: options.connection, logger: logger)
        let events = connection.events()
        do {
            try await connection.connect(timeout: .milliseconds(Int(options.connectTimeout * 1000)))
        } catch let error as MQTTError {
            throw WatchError(message: "cannot connect: \(error.message)")
        }
        var subscriptions: [MQTTSubscription] = []
        for filter in Self.filters(options.topics) { subscriptions.append(try await connection.subscribe(filter)) }
        for filter in MotionSources(settings: options.motion).subscriptions { subscriptions.append(try await connection.subscribe(filter)) }

        let clock = ContinuousClock()
        let started = clock.now
        let (inputs, input) = AsyncStream<Input>.makeStream()
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                var state = WatchState(topics: options.topics, motion: options.motion)
                var note: String?
                var dirty = true
                var drawn = false
                var lastDraw = started
                var lastRetained = started
                for subscription in subscriptions {
                    group.addTask { for await message in subscription { input.yield(.message(message)) } }
                }
                group.addTask { for await event in events { input.yield(.connection(event)) } }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(100))
                        input.yield(.tick)
                    }
                }

                loop: for await next in inputs {
                    switch next {
                    case .shutdown:
                        break loop
                    case .message(let message):
                        if state.receive(topic: message.topic, payload: message.payload, at: now()) { dirty = true }
                        if message.retain { lastRetained = clock.now }
                        continue loop
                    case .connection(.connectionLost(let error)):
                        note = "connection lost (\(error.message)), reconnecting"
                        dirty = true
                        continue loop
                    case .connection(.connected):
                        if note != nil { dirty = true }
                        note = nil
                        continue loop
                    case .connection(.connectFailed(let error, _)):
                        note = "cannot reach the broker (\(error.message)), retrying"
                        dirty = true
                        continue loop
                    case .connection(.stopped):
                        break loop
                    case .tick:
                        break
                    }

                    let current = clock.now
                    let elapsed = Self.seconds(current - started)
                    let quiet = Self.seconds(current - lastRetained) >= 0.5 || elapsed >= 3
                    let expired = options.duration.map { elapsed >= $0 } ?? false
                    if options.once {
                        guard quiet else { continue }
                        output(frame(state, note: note, ansi: false))
                        break loop
                    }
                    let sinceDraw = Self.seconds(current - lastDraw)
                    if options.terminal {
                        // At most four frames a second; one a second anyway, for the ages.
                        if (dirty && sinceDraw >= 0.25) || sinceDraw >= 1 || !drawn {
                            output((drawn ? "" : "\u{1B}[2J") + frame(state, note: note, ansi: true))
                            drawn = true
                            dirty = false
                            lastDraw = current
                        }
                    } else if dirty && quiet && (sinceDraw >= 1 || !drawn) {
                        output((drawn ? "\n" : "") + frame(state, note: note, ansi: false))
                        drawn = true
                        dirty = false
                        lastDraw = current
                    }
                    if expired { break loop }
                }
                if options.terminal && !options.once { output("\n") }
                input.finish()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            input.yield(.shutdown)
        }
        await connection.disconnect(flushTimeout: .seconds(1))
    }

    /// One frame: with `ansi`, drawn from the top-left corner over the previous one and cut to the
    /// screen's height; without, plain lines.
    private func frame(_ state: WatchState, note: String?, ansi: Bool) -> String {
        let size = ansi ? screenSize() : (columns: 160, rows: Int.max)
        var title = options.title
        if let note { title += " · " + note }
        var lines = WatchRenderer(title: title).lines(for: state, at: now(), width: ansi ? size.columns - 1 : size.columns)
        guard ansi else { return lines.joined(separator: "\n") + "\n" }
        if lines.count > size.rows - 1 { lines = Array(lines.prefix(max(1, size.rows - 1))) }
        // Home, each line then clear to its end, then clear the rest of the screen: no flicker.
        return "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J"
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// Why `WatchService` stopped before showing anything.
public struct WatchError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
