import BeaconCore

/// Notices when a controller set up as a scanner stops scanning for a reason that is not the
/// agent's own, and says when to set it up again: a state machine fed with what the socket or
/// serial line shows, on an injected clock (no I/O).
///
/// What it reads, as seen on Debian 12's kernel with BlueZ's emulated controllers:
/// - Another program's commands: the kernel copies every command sent to an adapter to the raw
///   sockets bound to it (never to the sender). An `HCI_Reset` (the adapter powered off and on, a
///   `hciconfig hci0 reset`), or an LE scan enable with Enable 0 (the end of `bluetoothctl scan on`,
///   of a desktop's or Home Assistant's discovery) leaves our scan off.
/// - Answers to commands we did not send: a Command Complete for `HCI_Reset` or the NOP (opcode 0)
///   a controller sends when it has restarted (a dongle that resets itself on a serial line), or for
///   a scan enable whose command was not seen; a Hardware Error event.
/// - Silence: a controller that heard `minimumHeard` reports and then none for `quietAfter` seconds.
///   Once per hearing: after the set-up, it must hear again before silence counts again.
///
/// While another program's scan is on (its enable seen, no disable yet) nothing is due: its reports
/// reach our socket too, and setting up ours would stop its discovery. When it switches scanning
/// off, ours is set up again after `settle` seconds of quiet from it.
public struct ScanWatch: Sendable {
    public struct Settings: Hashable, Sendable {
        /// Seconds without foreign commands before setting up again (a discovery sends a burst).
        public var settle: Double = 2
        /// Seconds without a report, after hearing some, that mean the controller went deaf.
        public var quietAfter: Double = 60
        /// Reports heard since the set-up before silence is suspicious.
        public var minimumHeard = 10

        public init() {}
    }

    public enum Cause: Hashable, Sendable, CustomStringConvertible {
        case resetByAnotherProgram
        case scanSwitchedOffByAnotherProgram
        case controllerRestarted
        case scanChangedByAnotherProgram
        case hardwareError(UInt8)
        case quiet(seconds: Double, heard: Int)

        public var description: String {
            switch self {
            case .resetByAnotherProgram: return "another program reset the controller (HCI_Reset; an adapter power cycle does this)"
            case .scanSwitchedOffByAnotherProgram: return "another program switched scanning off (the end of its discovery)"
            case .controllerRestarted: return "the controller restarted (an HCI_Reset answer the agent did not ask for)"
            case .scanChangedByAnotherProgram: return "another program changed the scan (an LE scan enable answer the agent did not ask for)"
            case .hardwareError(let code): return "the controller reported a hardware error (code 0x\(HexDigits.string([code])))"
            case .quiet(let seconds, let heard):
                return "no advertising reports for \(Int(seconds)) s after hearing \(heard) (a controller gone deaf, or nothing left to hear)"
            }
        }
    }

    public let settings: Settings
    private var pending: Cause?
    private var lastForeignActivity: Double
    private var lastForeignScanCommand = -Double.infinity
    private var foreignScanOn = false
    private var heardSinceStart = 0
    private var lastHeard: Double

    /// - Parameter startedAt: when setup finished (the clock the other calls use).
    public init(settings: Settings = Settings(), startedAt: Double) {
        self.settings = settings
        lastForeignActivity = startedAt
        lastHeard = startedAt
    }

    static let resetOpcode = HCICommand.reset.opcode
    static let scanEnableOpcodes: Set<UInt16> = [HCICommand.leSetScanEnable(true).opcode, HCICommand.leSetExtendedScanEnable(true).opcode]

    /// A command another program sent to the controller.
    public mutating func foreignCommand(_ command: HCICommand, at time: Double) {
        let opcode = command.opcode
        let parameters = command.parameters
        lastForeignActivity = time
        if opcode == Self.resetOpcode {
            pending = .resetByAnotherProgram
            foreignScanOn = false
        } else if Self.scanEnableOpcodes.contains(opcode) {
            lastForeignScanCommand = time
            if parameters.first == 0x01 {
                foreignScanOn = true
            } else {
                foreignScanOn = false
                if pending == nil { pending = .scanSwitchedOffByAnotherProgram }
            }
        }
    }

    /// An HCI event packet after setup (code, length, parameters), before it is decoded.
    public mutating func event(_ packet: ArraySlice<UInt8>, at time: Double) {
        let bytes = Array(packet.prefix(6))
        guard bytes.count >= 3 else { return }
        switch bytes[0] {
        case 0x0E where bytes.count >= 5:  // Command Complete: code, length, credits, opcode
            let opcode = UInt16(bytes[3]) | UInt16(bytes[4]) << 8
            if opcode == Self.resetOpcode || opcode == 0 {
                lastForeignActivity = time
                if pending == nil { pending = .controllerRestarted }
                foreignScanOn = false
            } else if Self.scanEnableOpcodes.contains(opcode), time - lastForeignScanCommand > 5 {
                // Its command was not seen: a transport that does not show other programs'
                // commands. Which way it switched is unknown; setting up again is safe.
                lastForeignActivity = time
                if pending == nil { pending = .scanChangedByAnotherProgram }
            }
        case 0x10:  // Hardware Error: code, length, hardware code
            lastForeignActivity = time
            pending = .hardwareError(bytes[2])
        default:
            break
        }
    }

    /// Reports heard in one read.
    public mutating func heard(_ count: Int, at time: Double) {
        guard count > 0 else { return }
        heardSinceStart += count
        lastHeard = time
    }

    /// Why the controller must be set up again now, if it must.
    public func due(at time: Double) -> Cause? {
        if let pending, !foreignScanOn, time - lastForeignActivity >= settings.settle { return pending }
        if pending == nil, heardSinceStart >= settings.minimumHeard, time - lastHeard >= settings.quietAfter {
            return .quiet(seconds: time - lastHeard, heard: heardSinceStart)
        }
        return nil
    }
}
