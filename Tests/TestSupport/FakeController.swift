import BeaconCore
import Foundation
import BluetoothHCI

/// A Bluetooth controller on the far end of a pseudo-terminal, as the H4 UART firmware of a USB
/// dongle would behave: it answers each command with Command Complete, lists (or not) the extended
/// scan commands, returns error statuses or stays silent when told to, and after scanning is enabled
/// sends the advertising reports it was given.
public final class FakeController: @unchecked Sendable {
    // @unchecked: every mutable field below is read and written only under `lock`.
    public struct Behaviour {
        public init() {}

        public var supportsExtendedScan = true
        /// Opcode → status to answer with instead of success.
        public var statuses: [UInt16: UInt8] = [:]
        /// Opcodes never answered.
        public var silentOpcodes: Set<UInt16> = []
        /// Raw bytes written before the reports once scanning starts (line noise).
        public var noiseBeforeReports: [UInt8] = []
        /// What the Core spec allows and Zephyr's hci_uart does: once a legacy LE scan command was
        /// used, extended ones are answered 0x0C (Command Disallowed) until HCI_Reset.
        public var legacyLocksOutExtended = false
        /// H4 event packets sent once scanning is enabled.
        public var reportsAfterScanEnable: [[UInt8]] = []
        /// Sends `reportsAfterScanEnable` again this often (real seconds) while scanning is on:
        /// beacons that keep advertising.
        public var reportInterval: Double?
        /// The power answered to LE Read Advertising Physical Channel Tx Power and LE Set Extended
        /// Advertising Parameters (dBm); nil answers only the status, as a controller that does not say.
        public var advertisingTransmitPower: Int8? = 4
    }

    public let pty: PseudoTerminal
    private let lock = NSLock()
    private var behaviour: Behaviour
    private var received: [HCICommand] = []
    private var running = true
    private var legacyUsed = false
    private var scanning = false
    private let finished = DispatchSemaphore(value: 0)

    public init(behaviour: Behaviour) throws {
        pty = try PseudoTerminal()
        self.behaviour = behaviour
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Commands received so far, by name.
    public var commandNames: [String] {
        lock.lock()
        defer { lock.unlock() }
        return received.map(\.name)
    }

    public var commands: [HCICommand] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Bytes as another program's traffic would show them: a command the kernel copies to every raw
    /// socket, or an event the controller sends unasked (the NOP after it restarted).
    public func inject(_ bytes: [UInt8]) {
        pty.write(bytes)
    }

    /// Stops serving and unplugs the device.
    public func unplug() {
        lock.lock()
        running = false
        lock.unlock()
        finished.wait()
        pty.closeController()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    private func serve() {
        var deframer = H4Deframer()
        var lastReports = Date()
        while isRunning {
            let bytes = pty.readAvailable(timeout: 0.05)
            lock.lock()
            let repeatEvery = scanning ? behaviour.reportInterval : nil
            let reports = behaviour.reportsAfterScanEnable
            lock.unlock()
            if let repeatEvery, Date().timeIntervalSince(lastReports) >= repeatEvery {
                lastReports = Date()
                for report in reports { pty.write(report) }
            }
            guard !bytes.isEmpty else { continue }
            _ = deframer.append(contentsOf: bytes)
            while let packet = deframer.nextPacket() {
                guard packet.type == .command, packet.bytes.count >= 3 else { continue }
                let b = Array(packet.bytes)
                let opcode = UInt16(b[0]) | UInt16(b[1]) << 8
                answer(HCICommand(opcode: opcode, parameters: Array(b.dropFirst(3)), name: FakeController.name(opcode)))
            }
        }
        finished.signal()
    }

    private func answer(_ command: HCICommand) {
        lock.lock()
        received.append(command)
        let behaviour = self.behaviour
        let legacy = [HCICommand.leSetScanParameters(.default).opcode, HCICommand.leSetScanEnable(true).opcode]
        let extended = [HCICommand.leSetExtendedScanParameters(.default).opcode, HCICommand.leSetExtendedScanEnable(true).opcode]
        let lockedOut = behaviour.legacyLocksOutExtended && legacyUsed && extended.contains(command.opcode)
        if command == .reset {
            legacyUsed = false
            scanning = false
        }
        if command.opcode == HCICommand.leSetScanEnable(true).opcode || command.opcode == HCICommand.leSetExtendedScanEnable(true).opcode {
            scanning = command.parameters.first == 0x01 && !lockedOut && behaviour.statuses[command.opcode] == nil
        }
        if legacy.contains(command.opcode) { legacyUsed = true }
        lock.unlock()
        if behaviour.silentOpcodes.contains(command.opcode) { return }
        let status = lockedOut ? 0x0C : behaviour.statuses[command.opcode] ?? 0
        var returned: [UInt8] = [status]
        if command == .readLocalSupportedCommands {
            var supported = [UInt8](repeating: 0xFF, count: 64)
            supported[37] = behaviour.supportsExtendedScan ? 0xFF : 0x9F
            returned += supported
        }
        let reportsPower = [HCICommand.leReadAdvertisingPhysicalChannelTxPower.opcode,
                            HCICommand.leSetExtendedAdvertisingParameters(intervalUnits: 0).opcode]
        if reportsPower.contains(command.opcode), status == 0, let power = behaviour.advertisingTransmitPower {
            returned.append(UInt8(bitPattern: power))
        }
        let parameters: [UInt8] = [0x01, UInt8(command.opcode & 0xFF), UInt8(command.opcode >> 8)] + returned
        pty.write([0x04, 0x0E, UInt8(parameters.count)] + parameters)
        let enables = command == .leSetScanEnable(true) || command == .leSetExtendedScanEnable(true)
        if enables && status == 0 {
            pty.write(behaviour.noiseBeforeReports)
            for report in behaviour.reportsAfterScanEnable { pty.write(report) }
        }
    }

    static func name(_ opcode: UInt16) -> String {
        let known: [HCICommand] = [.reset, .setEventMask, .readLocalSupportedCommands, .leSetEventMask,
                                   .leSetScanParameters(.default), .leSetScanEnable(true),
                                   .leSetExtendedScanParameters(.default), .leSetExtendedScanEnable(true),
                                   .leSetAdvertisingParameters(intervalUnits: 0), .leReadAdvertisingPhysicalChannelTxPower,
                                   .leSetAdvertisingData([]), .leSetAdvertisingEnable(true),
                                   .leSetExtendedAdvertisingParameters(intervalUnits: 0), .leSetExtendedAdvertisingData([]),
                                   .leSetExtendedAdvertisingEnable(true)]
        return known.first { $0.opcode == opcode }?.name ?? "0x" + HexDigits.string([UInt8(opcode >> 8), UInt8(opcode & 0xFF)])
    }
}
