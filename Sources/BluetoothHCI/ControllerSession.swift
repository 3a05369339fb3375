import BeaconCore

/// A controller on a transport, set up as a scanner: runs `ControllerSetup`'s conversation (each
/// command waits for its answer, with a timeout), then hands over HCI event packets as they come.
///
/// Blocking and single-threaded by design: the agent runs one on a thread of its own, so the
/// controller's pace never stalls publishing, and tests drive it against a fake controller.
public final class ControllerSession {
    public let transport: any HCITransport
    /// Seconds to wait for each command's answer.
    public let commandTimeout: Double
    private var deframer = H4Deframer(maximumPayloadLength: 1024)
    private var pendingEvents: [HCIPacket] = []
    private var foreignCommands: [HCICommand] = []
    public private(set) var mode: ControllerSetup.ScanMode?
    /// How the node beacon's set-up ended, after `start`; nil when none was asked for.
    public private(set) var advertising: AdvertisingOutcome?

    public init(transport: any HCITransport, commandTimeout: Double = 2) {
        self.transport = transport
        self.commandTimeout = commandTimeout
    }

    /// Bytes the H4 framing skipped to resynchronise (line noise, a controller restarting).
    public var skippedByteCount: Int { deframer.skippedByteCount }

    /// Runs the setup conversation; returns the scan mode the controller ended in.
    /// `now` reads a monotonic clock in seconds, for the command timeout only.
    public func start(_ setup: ControllerSetup, now: () -> Double) throws(ControllerSessionError) -> ControllerSetup.ScanMode {
        var setup = setup
        var action = setup.start()
        while true {
            switch action {
            case .scanning(let mode):
                self.mode = mode
                advertising = setup.advertising
                return mode
            case .failed(let error):
                throw .setupFailed(error)
            case .send(let command):
                action = try exchange(command, with: &setup, now: now)
            }
        }
    }

    /// Sends the commands that stop scanning (and the node beacon: on a socket the controller would
    /// advertise on after the agent), waiting briefly for each answer; errors are ignored because
    /// this runs on the way out (the device may already be gone).
    public func stop(now: () -> Double) {
        guard let mode else { return }
        var commands = ControllerSetup.stopCommands(for: mode)
        if case .advertising? = advertising { commands.append(ControllerSetup.stopAdvertisingCommand(for: mode)) }
        for command in commands {
            _ = try? awaitAnswer(to: command, now: now)
        }
        self.mode = nil
    }

    /// Commands other programs sent to the controller since the last call, as an HCI socket shows
    /// them (a serial line shows none): for `ScanWatch`. At most 64 are kept between calls.
    public func takeForeignCommands() -> [HCICommand] {
        defer { foreignCommands.removeAll() }
        return foreignCommands
    }

    /// Reads what arrives within `timeout` seconds and calls `body` with each whole event packet
    /// (code, length, parameters); then, up to `reads` reads in all, what else is ready without
    /// waiting (a socket gives one event a read). Returns the number of events; throws when the
    /// device is gone.
    @discardableResult
    public func readEvents(timeout: Double, reads: Int = 1, _ body: (ArraySlice<UInt8>) -> Void) throws(HCITransportError) -> Int {
        if !pendingEvents.isEmpty {
            // Reports that came in while setup waited for an answer: deliver them now, without
            // first waiting for more.
            for packet in pendingEvents { body(packet.bytes) }
            let count = pendingEvents.count
            pendingEvents.removeAll()
            return count
        }
        var events = 0
        for read in 0..<max(1, reads) {
            // The first read waits up to `timeout`; the rest take only what is ready.
            let bytes = try transport.receive(timeout: read == 0 ? timeout : 0)
            if bytes.isEmpty { break }
            deliver(bytes) { events += 1; body($0) }
        }
        return events
    }

    private func deliver(_ bytes: [UInt8], _ body: (ArraySlice<UInt8>) -> Void) {
        var chunk = bytes[...]
        while !chunk.isEmpty {
            let taken = deframer.append(contentsOf: chunk)
            chunk = chunk.dropFirst(taken)
            while let packet = deframer.nextPacket() {
                if packet.type == .event {
                    body(packet.bytes)
                } else if packet.type == .command, packet.bytes.count >= 3, foreignCommands.count < 64 {
                    let bytes = packet.bytes
                    let start = bytes.startIndex
                    foreignCommands.append(HCICommand(
                        opcode: UInt16(bytes[start]) | UInt16(bytes[start + 1]) << 8,
                        parameters: Array(bytes.dropFirst(3)), name: "another program's command"))
                }
            }
            if taken == 0 { break }
        }
    }

    private func exchange(
        _ command: HCICommand, with setup: inout ControllerSetup, now: () -> Double
    ) throws(ControllerSessionError) -> ControllerSetup.Action {
        do {
            try transport.send(command.h4Packet)
        } catch {
            throw .transport(error)
        }
        let deadline = now() + commandTimeout
        while now() < deadline {
            let packets: [HCIPacket]
            do {
                packets = try readPackets(timeout: max(0.01, deadline - now()))
            } catch {
                throw .transport(error)
            }
            for packet in packets {
                if let response = CommandResponse(eventPacket: packet), let next = setup.handle(response) {
                    return next
                }
            }
        }
        throw .noAnswer(command: command.name, seconds: commandTimeout)
    }

    private func awaitAnswer(to command: HCICommand, now: () -> Double) throws -> CommandResponse? {
        try transport.send(command.h4Packet)
        let deadline = now() + commandTimeout
        while now() < deadline {
            for packet in try readPackets(timeout: max(0.01, deadline - now())) {
                if let response = CommandResponse(eventPacket: packet), response.opcode == command.opcode { return response }
            }
        }
        return nil
    }

    /// Event packets from one read; advertising reports seen while waiting for an answer are kept
    /// for the next `readEvents`, not lost.
    private func readPackets(timeout: Double) throws(HCITransportError) -> [HCIPacket] {
        let bytes = try transport.receive(timeout: timeout)
        var chunk = bytes[...]
        var packets: [HCIPacket] = []
        while !chunk.isEmpty {
            let taken = deframer.append(contentsOf: chunk)
            chunk = chunk.dropFirst(taken)
            while let packet = deframer.nextPacket() {
                guard packet.type == .event else { continue }
                if CommandResponse(eventPacket: packet) != nil {
                    packets.append(packet)
                } else if pendingEvents.count < 256 {
                    pendingEvents.append(packet)
                }
            }
            if taken == 0 { break }
        }
        return packets
    }
}

public enum ControllerSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    case transport(HCITransportError)
    case setupFailed(ControllerSetupError)
    case noAnswer(command: String, seconds: Double)

    public var description: String {
        switch self {
        case .transport(let error): return error.description
        case .setupFailed(let error): return error.description
        case .noAnswer(let command, let seconds):
            return "\(command): the controller did not answer within \(JSONObjectWriter.number(seconds, decimals: 1)) s"
        }
    }
}

extension CommandResponse {
    /// The answer carried by a Command Complete or Command Status event; nil for other events.
    init?(eventPacket packet: HCIPacket) {
        guard packet.type == .event, let event = try? HCIEvent(decoding: packet.bytes) else { return nil }
        switch event {
        case .commandComplete(let complete):
            self.init(kind: .complete, opcode: complete.opcode, status: complete.status ?? 0,
                      returnParameters: Array(complete.returnParameters.dropFirst()))
        case .commandStatus(let status):
            self.init(kind: .status, opcode: status.opcode, status: status.status)
        default:
            return nil
        }
    }
}
