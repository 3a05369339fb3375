/// A failure guard, not a wait: `body` runs until it finishes; if `timeout` passes first it is
/// cancelled and `TimedOut` thrown. Nothing waits for time to pass when all goes well.
public func within<Value: Sendable>(
    _ what: String, timeout: Duration = .seconds(10), _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut(what: what) }
        return value
    }
}

public struct TimedOut: Error, CustomStringConvertible {
    public let what: String

    public init(what: String) {
        self.what = what
    }

    public var description: String { "timed out waiting for \(what)" }
}
