import BeaconCore

/// Why a message on a foreign node's topic (an ESPresense node, a BLE-to-MQTT gateway) was not
/// used. The text never holds a device id that carries a key (`irk:…`): it is logged.
public struct ForeignMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    /// The payload's field that is wrong, when one is (`minor`, `rssi`): what the log line names.
    public var field: String?
    /// The device the message was about, when its topic names one (a gateway's advertiser address).
    public var device: String?
    public init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }
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
