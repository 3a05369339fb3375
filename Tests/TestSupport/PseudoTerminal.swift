#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal pair: the test holds the controller's end (`controller`), the transport opens
/// `devicePath` as if it were /dev/ttyACM0.
public final class PseudoTerminal {
    public private(set) var controller: Int32
    public let devicePath: String

    public init() throws {
        // posix_openpt/ptsname are not visible through Swift's Glibc module; /dev/ptmx with the two
        // Linux ioctls they wrap is the same thing (asm-generic/ioctls.h values).
        let TIOCGPTN: UInt = 0x8004_5430
        let TIOCSPTLCK: UInt = 0x4004_5431
        // Close-on-exec: an agent the test spawns must not hold the controller side open, or
        // unplugging would not hang its line up.
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard controller >= 0, ioctl(controller, TIOCSPTLCK, &unlock) == 0,
            ioctl(controller, TIOCGPTN, &number) == 0
        else { throw PseudoTerminalError(message: "cannot open a pseudo-terminal: errno \(errno)") }
        devicePath = "/dev/pts/\(number)"
        // The controller side must not translate bytes either.
        var options = termios()
        tcgetattr(controller, &options)
        cfmakeraw(&options)
        tcsetattr(controller, TCSANOW, &options)
    }

    deinit { closeController() }

    /// Unplugs the fake device: the transport's next read sees the line hang up.
    public func closeController() {
        if controller >= 0 { close(controller) }
        controller = -1
    }

    public func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(controller, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Whatever is there within `timeout` seconds (empty if nothing, or the other end closed).
    public func readAvailable(timeout: Double) -> [UInt8] {
        var request = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
        guard controller >= 0, poll(&request, 1, Int32(timeout * 1000)) > 0, request.revents & Int16(POLLIN) != 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(controller, $0.baseAddress!, $0.count) }
        return n > 0 ? Array(buffer[0..<n]) : []
    }

    /// Reads until `count` bytes arrived, waiting at most `timeout` seconds for each chunk.
    public func read(count: Int, timeout: Double = 5) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while out.count < count {
            var request = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, Int32(timeout * 1000)) > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(controller, $0.baseAddress!, min($0.count, count - out.count)) }
            guard n > 0 else { break }
            out += buffer[0..<n]
        }
        return out
    }
}

public struct PseudoTerminalError: Error, CustomStringConvertible {
    let message: String
    public var description: String { message }
}
