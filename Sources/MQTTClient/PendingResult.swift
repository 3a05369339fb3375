import Synchronization

/// A result that arrives once, from any thread, and that any number of tasks may await.
/// Waiting is cancellable: a cancelled waiter gets `CancellationError` and the result stays
/// available to others. Completing twice keeps the first result.
final class PendingResult<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, MQTTError>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextWaiterID: UInt64 = 0
    }

    private enum Registration {
        case ready(Result<Value, MQTTError>)
        case cancelled
        case waiting
    }

    private let state = Mutex(State())

    init() {}

    init(result: Result<Value, MQTTError>) {
        state.withLock { $0.result = result }
    }

    var result: Result<Value, MQTTError>? { state.withLock { $0.result } }

    func complete(_ result: Result<Value, MQTTError>) {
        let waiters: [CheckedContinuation<Value, any Error>] = state.withLock { state in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    /// The value, once it is there. Throws the `MQTTError` it completed with, or
    /// `CancellationError` when the awaiting task is cancelled first.
    func value() async throws -> Value {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let registration: Registration = state.withLock { state in
                    if let result = state.result { return .ready(result) }
                    if Task.isCancelled { return .cancelled }
                    state.waiters[id] = continuation
                    return .waiting
                }
                switch registration {
                case .ready(let result): continuation.resume(with: result.mapError { $0 as any Error })
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// Runs `operation`, throwing `MQTTError.timedOut` (with `what` in its message) when it has not
/// finished within `timeout`. The operation is cancelled then, so it must honour cancellation.
func withTimeout<Value: Sendable>(
    _ timeout: Duration,
    _ what: String,
    operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw MQTTError(.timedOut, "\(what) did not happen within \(timeout)")
        }
        return value
    }
}
