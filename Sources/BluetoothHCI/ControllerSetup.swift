import BeaconCore

/// The conversation that turns a controller into a beacon scanner, as a state machine that returns
/// the next command to send: no I/O, so it is tested without a controller and shared by every
/// transport.
///
/// Order: [reset, event mask, LE event mask] (only where we own the controller: a serial line;
/// on an HCI socket bluetoothd owns it and has set them), read supported commands, then one command
/// family for the whole session: the extended scan commands when the controller lists them, else
/// the legacy ones. The Core spec lets a controller refuse extended commands once a legacy one was
/// used, until a reset (Vol 4 Part E, "Legacy and extended advertising": 0x0C Command Disallowed),
/// so no legacy command goes before the extended ones. On a socket a scan left running (by a
/// previous run) is stopped with the chosen family's enable command; right after HCI_Reset there
/// is none to stop. An extended command that the controller answers with any error falls back to
/// legacy: controllers that list the commands and then refuse them exist.
///
/// With an `AdvertisingRequest`, once the scan is on the node beacon is set up in the scan's family
/// (legacy: parameters, read the advertising power, data, enable; extended: parameters, which answer
/// the power, data, enable), after stopping one left on by a previous run where the controller is
/// not ours. A command refused there ends the advertising, not the setup: the outcome is
/// `advertising`, and the controller scans on.
public struct ControllerSetup: Sendable {
    public enum Action: Hashable, Sendable {
        case send(HCICommand)
        /// Setup finished; the controller scans in this mode.
        case scanning(ScanMode)
        case failed(ControllerSetupError)
    }

    public enum ScanMode: String, Hashable, Sendable {
        case legacy
        case extended
    }

    public let parameters: ScanParameters
    private var queue: [HCICommand]
    private(set) var pending: HCICommand?
    private(set) var mode: ScanMode = .legacy
    private var fellBack = false
    /// The command whose answer does not matter (stopping a scan that may not be running).
    private var answerIgnored: HCICommand?
    private let configureController: Bool
    private let advertisingRequest: AdvertisingRequest?
    /// Set once the advertising commands are queued: their answers never fail the setup.
    private var advertisingStarted = false
    private var transmitPower: Int?
    /// How the node beacon's set-up ended; nil while it has not (or none was asked for).
    public private(set) var advertising: AdvertisingOutcome?

    /// - Parameters:
    ///   - configureController: reset and set event masks first (a controller of our own on a serial line).
    ///   - preferExtended: use the extended scan commands when the controller supports them.
    ///   - advertising: a node beacon to advertise once scanning is on; nil advertises nothing.
    public init(
        parameters: ScanParameters = .default, configureController: Bool, preferExtended: Bool = true,
        advertising: AdvertisingRequest? = nil
    ) {
        self.parameters = parameters
        self.configureController = configureController
        self.advertisingRequest = advertising
        var commands: [HCICommand] = []
        if configureController {
            commands += [.reset, .setEventMask, .leSetEventMask]
        }
        commands.append(.readLocalSupportedCommands)
        queue = commands
        self.preferExtended = preferExtended
    }

    private let preferExtended: Bool

    /// The command waiting for its answer, if any.
    public var awaiting: HCICommand? { pending }

    public mutating func start() -> Action {
        next()
    }

    /// Feeds the answer to a command. Returns nil when the answer is not for the pending command
    /// (a stray Command Complete, or a Command Status that only says the command was accepted).
    public mutating func handle(_ response: CommandResponse) -> Action? {
        guard let command = pending, response.opcode == command.opcode else { return nil }
        if response.kind == .status && response.status == 0 { return nil }

        if command == .readLocalSupportedCommands {
            let supportsExtended = response.status == 0
                && ControllerSetup.supportsExtendedScan(supportedCommands: response.returnParameters)
            mode = supportsExtended && preferExtended ? .extended : .legacy
            queue += setupCommands(mode)
            pending = nil
            return next()
        }
        if command == answerIgnored {
            answerIgnored = nil
            pending = nil
            return next()
        }
        if advertisingStarted { return handleAdvertising(command, response) }

        if response.status != 0 {
            if mode == .extended, !fellBack {
                fellBack = true
                mode = .legacy
                queue = setupCommands(.legacy)
                pending = nil
                return next()
            }
            pending = nil
            return .failed(ControllerSetupError(command: command.name, status: response.status))
        }
        pending = nil
        return next()
    }

    /// Where the controller is not ours (a socket), first stop a scan left running, in the
    /// family of the commands that follow; then the scan parameters and enable.
    private mutating func setupCommands(_ mode: ScanMode) -> [HCICommand] {
        guard !configureController else { return scanCommands(mode) }
        let stop = ControllerSetup.stopCommands(for: mode)[0]
        answerIgnored = stop
        return [stop] + scanCommands(mode)
    }

    /// The commands that stop scanning cleanly on exit, for the mode setup ended in.
    public static func stopCommands(for mode: ScanMode) -> [HCICommand] {
        switch mode {
        case .legacy: return [.leSetScanEnable(false)]
        case .extended: return [.leSetExtendedScanEnable(false)]
        }
    }

    private func scanCommands(_ mode: ScanMode) -> [HCICommand] {
        switch mode {
        case .legacy: return [.leSetScanParameters(parameters), .leSetScanEnable(true)]
        case .extended: return [.leSetExtendedScanParameters(parameters), .leSetExtendedScanEnable(true)]
        }
    }

    private mutating func next() -> Action {
        if queue.isEmpty, let request = advertisingRequest, !advertisingStarted {
            advertisingStarted = true
            queue = advertisingCommands(mode, request)
        }
        guard !queue.isEmpty else { return .scanning(mode) }
        let command = queue.removeFirst()
        pending = command
        return .send(command)
    }

    /// Where the controller is not ours, first stop a node beacon left on (answer ignored: there
    /// may be none); the data goes in when the power is known (`handleAdvertising`).
    private mutating func advertisingCommands(_ mode: ScanMode, _ request: AdvertisingRequest) -> [HCICommand] {
        var commands: [HCICommand] = []
        if !configureController {
            let stop = ControllerSetup.stopAdvertisingCommand(for: mode)
            answerIgnored = stop
            commands.append(stop)
        }
        switch mode {
        case .legacy:
            return commands + [.leSetAdvertisingParameters(intervalUnits: request.intervalUnits),
                               .leReadAdvertisingPhysicalChannelTxPower, .leSetAdvertisingEnable(true)]
        case .extended:
            return commands + [.leSetExtendedAdvertisingParameters(intervalUnits: UInt32(request.intervalUnits)),
                               .leSetExtendedAdvertisingEnable(true)]
        }
    }

    /// The command that switches the node beacon off, for the mode setup ended in.
    public static func stopAdvertisingCommand(for mode: ScanMode) -> HCICommand {
        switch mode {
        case .legacy: return .leSetAdvertisingEnable(false)
        case .extended: return .leSetExtendedAdvertisingEnable(false)
        }
    }

    /// An answer during the node beacon's set-up. Reading the power may fail (a controller without
    /// the command): the advert then states the assumed power. Any other error ends the advertising
    /// with `refused`, and the setup with scanning.
    private mutating func handleAdvertising(_ command: HCICommand, _ response: CommandResponse) -> Action {
        pending = nil
        guard let request = advertisingRequest else { return next() }
        let readsPowerOnly = command == .leReadAdvertisingPhysicalChannelTxPower
        let readsPower = readsPowerOnly || command.opcode == HCICommand.leSetExtendedAdvertisingParameters(intervalUnits: 0).opcode
        if response.status != 0 && !readsPowerOnly {
            advertising = .refused(ControllerSetupError(command: command.name, status: response.status))
            queue.removeAll()
            return .scanning(mode)
        }
        if readsPower {
            // A signed byte; 0x7F (127) is "not available" in the extended answer.
            if response.status == 0, let byte = response.returnParameters.first, byte != 0x7F {
                transmitPower = Int(Int8(bitPattern: byte))
            }
            let power = NodeBeacon.measuredPower(transmitPower: transmitPower ?? AdvertisingRequest.assumedTransmitPower)
            let data = request.beacon.advertisingData(measuredPower: power)
            queue.insert(mode == .legacy ? .leSetAdvertisingData(data) : .leSetExtendedAdvertisingData(data), at: 0)
        }
        if queue.isEmpty {
            let power = NodeBeacon.measuredPower(transmitPower: transmitPower ?? AdvertisingRequest.assumedTransmitPower)
            advertising = .advertising(transmitPower: transmitPower, measuredPower: power)
        }
        return next()
    }

    /// Supported Commands octet 37: bit 5 LE Set Extended Scan Parameters, bit 6 LE Set Extended
    /// Scan Enable (Core spec Vol 4 Part E §6.27). `returnParameters` excludes the status byte.
    static func supportsExtendedScan(supportedCommands: [UInt8]) -> Bool {
        guard supportedCommands.count > 37 else { return false }
        return supportedCommands[37] & 0x60 == 0x60
    }
}

/// A controller's answer to a command: from Command Complete (status is the first return byte)
/// or Command Status.
public struct CommandResponse: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case complete
        case status
    }

    public let kind: Kind
    public let opcode: UInt16
    public let status: UInt8
    /// Return parameters after the status byte (Command Complete only).
    public let returnParameters: [UInt8]

    public init(kind: Kind, opcode: UInt16, status: UInt8, returnParameters: [UInt8] = []) {
        self.kind = kind
        self.opcode = opcode
        self.status = status
        self.returnParameters = returnParameters
    }
}

/// A command the controller answered with an error status.
public struct ControllerSetupError: Error, Hashable, Sendable, CustomStringConvertible {
    public let command: String
    public let status: UInt8

    public var description: String {
        let hex = "0x" + HexDigits.string([status])
        return "\(command) failed: \(ControllerSetupError.statusName(status)) (\(hex))"
    }

    /// Names of the Core spec's error codes (Vol 1 Part F) a scanner is likely to meet.
    static func statusName(_ status: UInt8) -> String {
        switch status {
        case 0x01: return "unknown HCI command"
        case 0x03: return "hardware failure"
        case 0x07: return "memory capacity exceeded"
        case 0x0C: return "command disallowed"
        case 0x11: return "unsupported feature or parameter value"
        case 0x12: return "invalid HCI command parameters"
        case 0x1F: return "unspecified error"
        case 0x3A: return "controller busy"
        default: return "error"
        }
    }
}
