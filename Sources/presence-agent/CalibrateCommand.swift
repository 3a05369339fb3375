import ArgumentParser
import BeaconCore
import BluetoothHCI
import FoundationEssentials
import PresenceAgent
import Timekeeping

#if canImport(Glibc)
import Glibc
#endif

/// `presence-agent calibrate`: a known beacon held at 1 m gives this node's `rssiOffset`, printed and
/// stored in the state directory for the agent's next start (`InstallCalibrationFile`).
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure this node's rssiOffset with a beacon held 1 m from it, and store it for the agent.",
        discussion: """
            For a site whose nodes cannot hear each other's node beacons (where they can, the aggregator \
            calibrates them itself). Stop the agent first: calibrate opens the same source (--config, \
            PRESENCE_SOURCE, --source). Hold a beacon 1 m from the node's adapter, in line of sight, and keep it \
            still; name it with --beacon (a canonical id or a known device's id), or calibrate takes the loudest \
            iBeacon, AltBeacon or Eddystone that states its 1 m power. It collects for --duration seconds, then \
            prints the 1 m level, the beacon's 1 m power and the offset (level − power), and writes \
            install-calibration.json in the state directory; the agent applies it at its next start unless \
            tracking.rssiOffset is set (an operator's value wins) or the broker pushes one. A run that is too \
            short, too noisy or whose level moved is refused with why, and nothing is stored: exit status 1. \
            Status 2 for a bad flag, file, source or state directory.
            """
    )

    @Option(name: .long, help: "The agent's YAML file: its source, stateDir, beacons and tracking.measuredPower are used.")
    var config: String?
    @Option(name: .long, help: "hci0, hci:N, uart:PATH[@BAUD], btsnoop:FILE or simulate[:FILE] (default: the agent's, hci0).")
    var source: String?
    @Option(name: .long, help: "Where the agent keeps its state; install-calibration.json is written there (default: the agent's, /var/lib/presence-agent).")
    var stateDir: String?
    @Option(name: .long, help: "The beacon held at 1 m: its canonical id or a known device's id (default: the loudest that states its 1 m power).")
    var beacon: String?
    @Option(name: .long, help: "Seconds to collect, 5…3600 (default 30).")
    var duration: Double?
    @Option(name: .long, help: "Replay pace for captures and the simulator: 1 real time, 0 as fast as possible. Default: 0 for captures, 1 for the simulator.")
    var speed: Double?
    @Option(name: .long, help: "The simulated node whose view to use (default: the scenario's first node).")
    var node: String?

    func validate() throws {
        if let speed, !(speed >= 0 && speed.isFinite) { throw ValidationError("--speed must be 0 or more") }
    }

    func run() throws {
        var agent = AgentConfiguration()
        if let config { agent.apply(file: config) }
        agent.apply(environment: ProcessInfo.processInfo.environment)
        if let source { agent.set(\.source, to: source, flagOf: "source") }
        if let stateDir { agent.set(\.stateDir, to: stateDir, flagOf: "stateDir") }

        let state = StateDirectory(path: agent.stateDir)
        let pushed: [KnownBeacon]?
        do {
            pushed = try ScanDeviceNames.pushedBeacons(stateDirectory: agent.stateDir)
        } catch {
            exitWithError(error.description)
        }
        let settings: InstallCalibration.Settings
        do {
            settings = try agent.calibrationSettings(beacon: beacon, duration: duration, pushedBeacons: pushed)
        } catch {
            exitWithErrors(error)
        }
        let specification: SourceSpecification
        do {
            specification = try SourceSpecification(parsing: agent.source)
        } catch {
            exitWithError("source: '\(agent.source)': \(error.reason)")
        }
        // Checked before the beacon is held for a while: a run that cannot be stored is no use.
        do {
            try state.prepare()
        } catch {
            exitWithError("\(error.description): calibrate stores its result there (--state-dir)")
        }
        var options = FeedOptions()
        if case .btsnoop = specification { options.speed = speed ?? 0 } else { options.speed = speed ?? agent.speed }
        options.simulatedNode = node
        // The simulator at speed 0 needs an end: the longest a run can last.
        options.simulationDuration = settings.waitForBeacon + settings.choosingTime + settings.duration + 1
        let feed: any AdvertisementFeed
        do {
            feed = try AdvertisementFeeds.open(specification, options: options)
        } catch {
            exitWithError(error.description)
        }
        defer { feed.close() }

        StopSignal.install()
        var calibration = InstallCalibration(settings: settings, at: feed.now)
        var outcome: InstallCalibration.Action?
        func handle(_ actions: [InstallCalibration.Action]) {
            for action in actions {
                if case .say(let line) = action { writeAll(line + "\n", to: STDOUT_FILENO) } else { outcome = action }
            }
        }
        func sayNotices() {
            for notice in feed.takeNotices() {
                printError("\(specification): \(notice.level == .warning ? "warning: " : "")\(notice.message)")
            }
        }
        handle(calibration.opening())
        sayNotices()
        do {
            while outcome == nil && !StopSignal.requested {
                var actions: [InstallCalibration.Action] = []
                let more = try feed.poll(timeout: 0.2) { actions += calibration.receive($0) }
                handle(actions)
                sayNotices()
                handle(more ? calibration.tick(at: feed.now) : calibration.sourceEnded(at: feed.now))
            }
        } catch {
            exitWithError(error.description)
        }
        switch outcome {
        case .finished(let reference)?:
            report(reference, agent: agent, state: state)
        case .refused(let rejection)?:
            printError("calibrate: refused: \(rejection); nothing stored")
            feed.close()
            Glibc.exit(1)
        case .say?, nil:
            printError("calibrate: stopped before the end; nothing stored")
            feed.close()
            Glibc.exit(1)
        }
    }

    /// Prints the result, stores it, and says what will win over it.
    private func report(_ reference: InstallCalibration.Reference, agent: AgentConfiguration, state: StateDirectory) {
        func number(_ value: Double, _ decimals: Int = 1) -> String { JSONObjectWriter.number(value, decimals: decimals) }
        let power = switch reference.powerSource {
        case .configured: "its configured 1 m power"
        case .advertised: "the 1 m power it states"
        case .nodeDefault: "the node's default 1 m power (it states none)"
        }
        let weaker = reference.rssiOffset < 0 ? "weaker" : "stronger"
        var lines = [
            "1 m level:     \(number(reference.rssi)) dBm (mean of \(reference.readings) readings over \(number(reference.seconds, 0)) s, ±\(number(reference.standardError, 2)) dB)",
            "1 m power:     \(number(reference.measuredPower, 0)) dBm (\(power))",
            "rssiOffset:    \(number(reference.rssiOffset)) dB (this node hears \(number(abs(reference.rssiOffset))) dB \(weaker) than the beacon's reference)",
        ]
        do {
            try state.write(InstallCalibrationFile.name, contents: InstallCalibrationFile.contents(reference))
        } catch {
            writeAll(lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
            exitWithError("\(error); the offset above was not stored")
        }
        // Run with sudo, the file is root's; the agent (user presence) owns the directory and must read it.
        var directory = stat()
        let file = state.path + "/" + InstallCalibrationFile.name
        if geteuid() == 0, stat(state.path, &directory) == 0 { _ = chown(file, directory.st_uid, directory.st_gid) }
        lines.append("Stored in \(file): the agent applies it at its next start.")
        if let operatorOffset = agent.rssiOffset {
            let from = agent.sources["tracking.rssiOffset"].map { " (\($0))" } ?? ""
            lines.append("Note: tracking.rssiOffset \(number(operatorOffset)) is set\(from) and wins over it: remove it to use this calibration.")
        }
        let pushed = state.load([AgentCore.StateFile.node]).files[AgentCore.StateFile.node].flatMap { try? NodeSettings.parse($0) }
        if case .replaced(let settings)? = pushed, let offset = settings.rssiOffset {
            lines.append("Note: the broker pushed rssiOffset \(number(offset)) to this node (\(AgentCore.StateFile.node)), and a pushed value wins over it.")
        }
        writeAll(lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
    }
}
