#if canImport(Glibc)
import Glibc
#endif

/// An H4 controller on a serial line, e.g. Zephyr's `hci_uart` firmware on an nRF52840 dongle at
/// `/dev/ttyACM0`: raw mode (no echo, no line editing, 8N1), the given speed, optional RTS/CTS.
public final class UARTTransport: HCITransport {
    public struct Settings: Hashable, Sendable {
        public var path: String
        /// Bits per second; Zephyr's hci_uart defaults to 1,000,000.
        public var baudRate: Int
        /// RTS/CTS hardware flow control: on for Zephyr's hci_uart, which asks for it.
        public var hardwareFlowControl: Bool

        public init(path: String, baudRate: Int = 1_000_000, hardwareFlowControl: Bool = true) {
            self.path = path
            self.baudRate = baudRate
            self.hardwareFlowControl = hardwareFlowControl
        }
    }

    public let settings: Settings
    private let channel: FileDescriptorChannel

    public init(settings: Settings) throws(HCITransportError) {
        self.settings = settings
        let operation = "open \(settings.path)"
        guard let speed = UARTTransport.speedConstant(settings.baudRate) else {
            throw HCITransportError(.configurationFailed, operation: "\(operation) at \(settings.baudRate) baud")
        }
        let descriptor = Glibc.open(settings.path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let kind: HCITransportError.Code = switch code {
            case ENOENT, ENODEV, ENXIO: .deviceNotFound
            case EACCES, EPERM: .permissionDenied
            default: .ioFailed
            }
            throw HCITransportError(
                kind, operation: operation, errno: code,
                advice: kind == .permissionDenied
                    ? "the serial device is usually group dialout: add the user to it (SupplementaryGroups=dialout in the unit)" : nil)
        }
        channel = FileDescriptorChannel(descriptor: descriptor, name: settings.path)

        var options = termios()
        guard tcgetattr(descriptor, &options) == 0 else {
            throw HCITransportError(.configurationFailed, operation: "\(operation): not a terminal", errno: errno)
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if settings.hardwareFlowControl {
            options.c_cflag |= tcflag_t(CRTSCTS)
        } else {
            options.c_cflag &= ~tcflag_t(CRTSCTS)
        }
        // Non-blocking reads with poll: VMIN/VTIME 0 so read returns what is there.
        withUnsafeMutableBytes(of: &options.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&options, speed) == 0, cfsetospeed(&options, speed) == 0,
            tcsetattr(descriptor, TCSANOW, &options) == 0
        else {
            throw HCITransportError(.configurationFailed, operation: "\(operation) at \(settings.baudRate) baud", errno: errno)
        }
        // Bytes left from before we opened belong to no command of ours.
        tcflush(descriptor, TCIOFLUSH)
    }

    public func send(_ packet: [UInt8]) throws(HCITransportError) {
        try channel.write(packet)
    }

    public func receive(timeout: Double) throws(HCITransportError) -> [UInt8] {
        try channel.read(timeout: timeout)
    }

    public func close() {
        channel.close()
    }

    static func speedConstant(_ baudRate: Int) -> speed_t? {
        switch baudRate {
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115_200: return speed_t(B115200)
        case 230_400: return speed_t(B230400)
        case 460_800: return speed_t(B460800)
        case 921_600: return speed_t(B921600)
        case 1_000_000: return speed_t(B1000000)
        case 1_500_000: return speed_t(B1500000)
        case 2_000_000: return speed_t(B2000000)
        case 3_000_000: return speed_t(B3000000)
        case 4_000_000: return speed_t(B4000000)
        default: return nil
        }
    }
}
