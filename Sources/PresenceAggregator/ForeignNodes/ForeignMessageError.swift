/// Why a message on a foreign node's topic (an ESPresense node, a BLE-to-MQTT gateway) was not
/// used. The text never holds a device id that carries a key (`irk:…`): it is logged.
public struct ForeignMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
