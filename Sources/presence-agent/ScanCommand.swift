import ArgumentParser
import BeaconCore
import BluetoothHCI
import PresenceAgent
import Synchronization
import Timekeeping

#if canImport(Glibc)
import Glibc
#endif

/// `presence-agent scan`: print what a source hears, one line per advertising report.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Print one line per advertising report a source hears.",
        discussion: """
            Sources: hci0 or hci:N (a BlueZ adapter; needs CAP_NET_RAW, and CAP_NET_ADMIN to power it up), \
            uart:/dev/ttyACM0[@1000000] (an H4 controller on a serial line), btsnoop:FILE (a capture), \
            simulate[:FILE] (synthetic beacons). Stops at the end of a capture, after --duration, or on Ctrl-C. \
            A new node: `presence-agent scan --source hci0 --duration 30 --suggest` prints the config/beacons \
            entries of the beacons it hears. Exit status 2 for a bad source or file.
            """
    )

    @Option(name: .long, help: "Where advertisements come from: hci0, hci:N, uart:PATH[@BAUD], btsnoop:FILE, simulate[:FILE].")
    var source: String

    @Flag(name: .long, help: "One JSON object per line (docs/MQTT.md's field names).")
    var json = false

    @Option(name: .long, help: "Replay pace for captures and the simulator: 1 real time, 0 as fast as possible. Default: 0 for captures, 1 for the simulator.")
    var speed: Double?

    @Option(name: .long, help: "The simulated node whose view to print (default: the scenario's first node).")
    var node: String?

    @Option(name: .long, help: "Stop after this many seconds (simulated seconds for the simulator).")
    var duration: Double?

    @Option(name: .long, help: "The agent's YAML file: each line from one of its known devices (beacons: by beacon id, phones and watches by their key) ends with device=ID.")
    var config: String?

    @Option(name: .long, help: "The agent's state directory: the known devices the broker pushed (beacons.json) name lines as --config does, and replace the file's, as in the agent.")
    var stateDir: String?

    @Flag(name: .long, help: "Instead of a line per report, print at the end the config/beacons entries for the beacons heard (YAML and the mosquitto_pub line), strongest first; an identity sent by several devices is flagged.")
    var suggest = false

    func validate() throws {
        if let speed, !(speed >= 0 && speed.isFinite) { throw ValidationError("--speed must be 0 or more") }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be more than 0 seconds") }
    }

    func run() throws {
        let specification: SourceSpecification
        do {
            specification = try SourceSpecification(parsing: source)
        } catch {
            exitWithError(error.description)
        }
        var options = FeedOptions()
        if case .btsnoop = specification { options.speed = speed ?? 0 } else { options.speed = speed ?? 1 }
        options.simulatedNode = node
        options.simulationDuration = duration

        let feed: any AdvertisementFeed
        do {
            feed = try AdvertisementFeeds.open(specification, options: options)
        } catch {
            exitWithError(error.description)
        }
        var settings = AgentConfiguration()
        var names = ScanDeviceNames(knownBeacons: knownDevices(&settings))
        var suggestions = ScanSuggestions()
        StopSignal.install()
        var output = OutputBuffer()
        let format = json ? ScanLineFormatter.json : ScanLineFormatter.text
        // The simulator counts --duration in simulated time itself; other sources in wall time.
        var wallDeadline = duration.map { SystemClock.monotonic() + $0 }
        if case .simulate = specification { wallDeadline = nil }
        // What happens to a radio (stopped and why, retrying, hearing again) goes to stderr.
        func sayNotices() {
            for notice in feed.takeNotices() {
                output.flush()
                printError("\(specification): \(notice.level == .warning ? "warning: " : "")\(notice.message)")
            }
        }
        sayNotices()
        do {
            while !StopSignal.requested {
                let more = try feed.poll(timeout: 0.2) { advertisement in
                    if suggest { suggestions.add(advertisement) } else {
                        output.line(format(advertisement, names.isEmpty ? nil : names.name(of: advertisement)))
                    }
                }
                sayNotices()
                if !more { break }
                // Live sources print as they hear; a capture prints in large blocks.
                if case .btsnoop = specification {} else { output.flush() }
                if let wallDeadline, SystemClock.monotonic() >= wallDeadline { break }
            }
        } catch {
            output.flush()
            feed.close()
            exitWithError(error.description)
        }
        if suggest { output.line(suggestions.report(root: settings.root, source: specification.description)) }
        output.flush()
        feed.close()
        if feed.malformedEventCount > 0 {
            printError("\(specification): skipped \(feed.malformedEventCount) malformed advertising events")
        }
    }
}

extension ScanCommand {
    /// The known devices to name: the list the broker pushed (kept in `--state-dir`) when there is
    /// one, else the `beacons:` of `--config` — as the agent would know them. A file that does not
    /// read or parse stops the scan with status 2, naming it.
    func knownDevices(_ settings: inout AgentConfiguration) -> [KnownBeacon] {
        var known: [KnownBeacon] = []
        if let config {
            settings.apply(file: config)
            if let problem = settings.problems.first { exitWithError("\(problem)") }
            known = settings.knownBeacons
        }
        if let stateDir {
            do {
                if let pushed = try ScanDeviceNames.pushedBeacons(stateDirectory: stateDir) { known = pushed }
            } catch {
                exitWithError(error.description)
            }
        }
        return known
    }
}

/// SIGINT and SIGTERM ask the loop to stop, so scanning is switched off on the way out.
enum StopSignal {
    private static let flag = Atomic<Bool>(false)

    static var requested: Bool { flag.load(ordering: .relaxed) }

    static func install() {
        signal(SIGINT) { _ in StopSignal.flag.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in StopSignal.flag.store(true, ordering: .relaxed) }
    }
}

/// Collects lines and writes them in large blocks: a capture can hold millions of reports.
struct OutputBuffer {
    private var text = ""

    mutating func line(_ line: String) {
        text += line
        text += "\n"
        if text.utf8.count >= 64 * 1024 { flush() }
    }

    mutating func flush() {
        guard !text.isEmpty else { return }
        writeAll(text, to: STDOUT_FILENO)
        text = ""
    }
}

func exitWithError(_ message: String) -> Never {
    printError("error: " + message)
    Glibc.exit(2)
}

func printError(_ message: String) {
    writeAll(message + "\n", to: STDERR_FILENO)
}

/// Writes straight to the descriptor: `stdout`/`stderr` are C globals Swift 6 will not touch.
func writeAll(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
}
