/// Where in a config message a value sits, rendered the way operators read it: `regions[2].uuid`.
///
/// The empty path (the whole message) renders as `payload`.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

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
