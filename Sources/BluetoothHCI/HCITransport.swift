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

    public init(_ code: Code, operation: String, errno: Int32? = nil) {
        self.code = code
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        let reason: String
        switch code {
        case .bluetoothUnsupported: reason = "this kernel has no Bluetooth support (AF_BLUETOOTH)"
        case .deviceNotFound: reason = "no such device"
        case .permissionDenied: reason = "permission denied (the HCI socket needs CAP_NET_RAW and CAP_NET_ADMIN)"
        case .deviceVanished: reason = "the device went away"
        case .configurationFailed: reason = "the device refused the setting"
        case .ioFailed: reason = "I/O error"
        case .closed: reason = "the transport is closed"
        }
        if let errno { return "\(operation): \(reason) (\(SystemError.message(errno)))" }
        return "\(operation): \(reason)"
    }
}
