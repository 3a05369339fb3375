/// Moves H4-framed HCI packets to and from a controller: a raw HCI socket, a serial line, or a test's
/// pseudo-terminal. Everything above this (command/response matching, controller setup, decoding)
/// is the same for every transport.
///
/// Transports are used from one thread at a time (the scanner's reader thread); they are not Sendable.
public protocol HCITransport: AnyObject {
    /// Writes one H4 packet: the packet-type indicator byte, then the packet.
    func send(_ packet: [UInt8]) throws(HCITransportError)

    /// Bytes of the H4 stream as they arrive, waiting at most `timeout` seconds.
    /// An empty result means the timeout passed with nothing to read.
    func receive(timeout: Double) throws(HCITransportError) -> [UInt8]

    /// Releases the device; safe to call twice.
    func close()

    /// Throws when the device can no longer scan though reads still work (an adapter powered
    /// down: its socket stays open and silent). Cheap; called every few seconds.
    func checkDevice() throws(HCITransportError)

    /// What opening had to do that the user should know (an adapter powered up), once.
    var openingNote: String? { get }
}

extension HCITransport {
    public func checkDevice() throws(HCITransportError) {}
    public var openingNote: String? { nil }
}

/// Why a transport failed, with the operating system's error where there is one.
public struct HCITransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The kernel has no Bluetooth support (`AF_BLUETOOTH`: EAFNOSUPPORT).
        case bluetoothUnsupported
        /// No such adapter or device file.
        case deviceNotFound
        /// Missing capabilities (CAP_NET_RAW, CAP_NET_ADMIN) or file permissions.
        case permissionDenied
        /// The adapter is powered down (ENETDOWN on an HCI socket).
        case adapterDown
        /// The radio is switched off by rfkill (ERFKILL).
        case blocked
        /// The device went away while in use (unplugged dongle, adapter reset).
        case deviceVanished
        /// A serial-line setting the device refused (speed, raw mode).
        case configurationFailed
        case ioFailed
        case closed
    }

    public let code: Code
    /// Says what was being done and to what, e.g. `open /dev/ttyACM0`.
    public let operation: String
    public let errno: Int32?
    /// What to do about it, when the transport knows (the capability and the line that grants it).
    public var advice: String?

    public init(_ code: Code, operation: String, errno: Int32? = nil, advice: String? = nil) {
        self.code = code
        self.operation = operation
        self.errno = errno
        self.advice = advice
    }

    public var description: String {
        let reason: String
        switch code {
        case .bluetoothUnsupported: reason = "this kernel has no Bluetooth support (AF_BLUETOOTH)"
        case .deviceNotFound: reason = "no such device"
        case .permissionDenied: reason = "permission denied"
        case .adapterDown: reason = "the adapter is down"
        case .blocked: reason = "the radio is blocked (rfkill)"
        case .deviceVanished: reason = "the device went away"
        case .configurationFailed: reason = "the device refused the setting"
        case .ioFailed: reason = "I/O error"
        case .closed: reason = "the transport is closed"
        }
        var text = "\(operation): \(reason)"
        if let errno { text += " (\(SystemError.message(errno)))" }
        if let advice { text += "; " + advice }
        return text
    }
}
