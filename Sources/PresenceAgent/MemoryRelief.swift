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
    /// glibc's `mallopt` parameter numbers (`<malloc.h>`).
    private static let trimThresholdParameter: Int32 = -1
    private static let mmapThresholdParameter: Int32 = -3
    private static let arenaMaxParameter: Int32 = -8

    /// The agent's allocator settings; call first thing in `main`, before any other thread
    /// allocates (glibc fixes its arena limit at the first arena a second thread asks for).
    ///
    /// - One arena: the source thread, the cooperative pool and libmosquitto's thread each took
    ///   one of their own (glibc's default is 8 per core), and every arena kept pages pinned by a
    ///   few long-lived objects among the freed ones. The threads allocate little at a time, so
    ///   sharing one lock costs nothing measurable.
    /// - Blocks of 128 KiB and more always mapped on their own: glibc's default raises that
    ///   threshold up to 32 MiB once such a block is freed, after which the track tables (MBs,
    ///   grown by doubling) came from the heap, and a grown table's old copy left a hole there that
    ///   small objects then pinned. Mapped on its own, a table is resident only as far as it is
    ///   filled, and its old copy goes back to the system when it is freed.
    /// - The heap's free top returned past 128 KiB, as glibc does before it raises the threshold.
    public static func configureAllocator() {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(arenaMaxParameter, 1)
        _ = mallopt(mmapThresholdParameter, 128 * 1024)
        _ = mallopt(trimThresholdParameter, 128 * 1024)
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
