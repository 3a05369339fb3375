import BeaconCore

/// Why a message on a foreign node's topic (an ESPresense node, a BLE-to-MQTT gateway) was not
/// used. The text never holds a device id that carries a key (`irk:…`): it is logged.
public struct ForeignMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension ForeignMessageError {
    /// `payload` read as a JSON object (at most `maximumBytes`, nested 4 deep), or the error that
    /// says why not: what every foreign message must be before its fields are read.
    static func jsonObject(_ payload: [UInt8], maximumBytes: Int) throws(ForeignMessageError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(payload, maximumBytes: maximumBytes, maximumDepth: 4)
        } catch {
            throw ForeignMessageError("not JSON (\(error.description))")
        }
        guard case .object(let object) = value else { throw ForeignMessageError("expected a JSON object") }
        return object
    }
}
