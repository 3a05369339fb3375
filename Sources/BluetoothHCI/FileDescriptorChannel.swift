#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-blocking file descriptor read with `poll` and written whole: the part of a serial line and
/// an HCI socket that is the same. Owns the descriptor and closes it once.
final class FileDescriptorChannel {
    private(set) var descriptor: Int32
    let name: String
    private var buffer = [UInt8](repeating: 0, count: 4096)

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    deinit { close() }

    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    func write(_ bytes: [UInt8]) throws(HCITransportError) {
        guard descriptor >= 0 else { throw HCITransportError(.closed, operation: "write \(name)") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN {
                    // The line is full: wait until it can take more rather than spin.
                    _ = waitFor(events: Int16(POLLOUT), timeout: 1.0)
                    continue
                }
                throw failure(code, "write \(name)")
            }
            offset += written
        }
    }

    func read(timeout: Double) throws(HCITransportError) -> [UInt8] {
        guard descriptor >= 0 else { throw HCITransportError(.closed, operation: "read \(name)") }
        let ready = waitFor(events: Int16(POLLIN), timeout: timeout)
        if ready.hangUp && !ready.readable {
            throw HCITransportError(.deviceVanished, operation: "read \(name)")
        }
        guard ready.readable else { return [] }
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(descriptor, raw.baseAddress!, raw.count)
            }
            if count > 0 { return Array(buffer[0..<count]) }
            if count == 0 { throw HCITransportError(.deviceVanished, operation: "read \(name)") }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN { return [] }
            throw failure(code, "read \(name)")
        }
    }

    private func waitFor(events: Int16, timeout: Double) -> (readable: Bool, hangUp: Bool) {
        var request = pollfd(fd: descriptor, events: events, revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
        let result = poll(&request, 1, milliseconds)
        guard result > 0 else { return (false, false) }
        let hangUp = request.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
        return (request.revents & Int16(POLLIN) != 0, hangUp)
    }

    private func failure(_ code: Int32, _ operation: String) -> HCITransportError {
        switch code {
        case ENODEV, ENXIO, EIO, EBADF, EPIPE: return HCITransportError(.deviceVanished, operation: operation, errno: code)
        case EPERM, EACCES: return HCITransportError(.permissionDenied, operation: operation, errno: code)
        case ENETDOWN: return HCITransportError(.adapterDown, operation: operation, errno: code)
        case ERFKILL: return HCITransportError(.blocked, operation: operation, errno: code)
        default: return HCITransportError(.ioFailed, operation: operation, errno: code)
        }
    }
}
