#if canImport(Glibc)
import Glibc
#endif

/// Keeps the agent's resident memory near what it holds: glibc keeps freed heap for reuse, so a
/// burst (a fast replay, a flood of advertisements, a broker outage's queue) would otherwise
/// stay resident for good. Measured by `presence-bench speed` (`agentResidentMB10k`).
///
/// `mallopt` and `malloc_trim` are glibc's (`<malloc.h>`, which Swift's Glibc module does not
/// import), so they are looked up by name; elsewhere these do nothing.
public enum MemoryRelief {
    /// glibc's `M_ARENA_MAX` parameter number.
    private static let arenaMaxParameter: Int32 = -8

    /// At most `count` malloc arenas (glibc's default is 8 per core, each with its own free lists).
    public static func limitArenas(_ count: Int32) {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMaxParameter, count)
        #endif
    }

    /// Returns freed heap pages to the system (a few milliseconds for tens of megabytes).
    public static func releaseFreedMemory() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
