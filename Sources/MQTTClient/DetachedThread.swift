#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A detached POSIX thread for work that blocks: libmosquitto's network loop (one per connection;
/// `mosquitto_loop` blocks in `select`) and the agent's source reads. Such work must not occupy a
/// thread of Swift's small cooperative pool, and Foundation's `Thread` would load Foundation (about
/// 10 MB resident with ICU) for it.
public enum DetachedThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a detached thread running `body`.
    /// Returns false when the system refuses a thread.
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let rc = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
                body.run()
                return nil
            }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        #if canImport(Glibc)
        pthread_detach(thread)
        #else
        if let thread { pthread_detach(thread) }
        #endif
        return true
    }
}

/// A wait that another thread can cut short: a pipe, read end polled with a timeout, one byte
/// written to wake it. Used for the reconnect backoff so `disconnect()` need not wait it out.
final class WakeupSignal: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Wakes the current or next `wait`.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Returns after `duration`, or earlier when `signal()` was called (since the last wait).
    func wait(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let milliseconds = max(0, min(Int64(Int32.max), seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32(milliseconds))
        var drain = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &drain, drain.count) > 0 {}
    }
}
