/// Where in a config message a value sits, rendered the way operators read it: `regions[2].uuid`.
///
/// The empty path (the whole message) renders as `payload`.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// One step into a message: an object's key or an array's index.
    public enum Component: Hashable, Sendable {
        /// A member of an object, rendered `.key` (or `key` first).
        case key(String)
        /// An element of an array, rendered `[n]`.
        case index(Int)
    }

    /// The steps from the message's root, outermost first.
    public private(set) var components: [Component]

    /// Creates a path from its steps; no steps is the whole message.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The whole message.
    public static let root = FieldPath()

    /// This path extended by an object key.
    public func appending(_ key: String) -> FieldPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    /// This path extended by an array index.
    public func appending(index: Int) -> FieldPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    mutating func push(_ component: Component) { components.append(component) }
    mutating func pop() { _ = components.popLast() }

    /// The path as operators read it, `regions[2].uuid`; `payload` for the whole message.
    public var description: String {
        guard !components.isEmpty else { return "payload" }
        var out = ""
        for component in components {
            switch component {
            case .key(let key):
                if !out.isEmpty { out.append(".") }
                // Keys come from the operator's message: keep them printable and short.
                out.append(ConfigError.printable(key, limit: 64))
            case .index(let index):
                out.append("[\(index)]")
            }
        }
        return out
    }
}
