import Foundation

/// Runs CPU-heavy synchronous work on a thread of its own, off Swift concurrency's cooperative pool
/// (one thread per core, two on the CI machine). Run there, a computation of several seconds holds a
/// pool thread the whole time, and the suite's tests that wait for brokers and processes stall
/// behind it until their failure guards fire; on its own thread it only shares the cores.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
