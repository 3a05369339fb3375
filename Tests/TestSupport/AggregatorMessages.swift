import BeaconCore
import MQTTClient

// What the aggregator's tests send and read, pure (PresenceAggregatorTests) and live on a real
// mosquitto (IntegrationTests): measurements as an agent publishes them, payloads as JSON objects.

public func text(_ message: MQTTMessage) -> String { message.payloadString ?? "<\(message.payload.count) bytes>" }

/// The payload as a JSON object; an error quoting the payload when it is not one.
public func object(_ message: MQTTMessage) throws -> JSONObject {
    guard case .object(let object) = try JSONParser.parse(message.payload) else {
        throw NotAJSONObject(payload: text(message))
    }
    return object
}

/// A message that had to be a JSON object and was not.
public struct NotAJSONObject: Error, CustomStringConvertible {
    public let payload: String
    public var description: String { "not a JSON object: \(payload)" }
}

extension JSONObject {
    public func string(_ key: String) -> String? {
        if case .string(let text)? = self[key] { return text }
        return nil
    }
    public func number(_ key: String) -> Double? {
        if case .number(let number)? = self[key] { return number.double }
        return nil
    }
    public func object(_ key: String) -> JSONObject? {
        if case .object(let object)? = self[key] { return object }
        return nil
    }
    public func isNull(_ key: String) -> Bool { self[key] == .null }
}

public let beaconID = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6")
public let otherBeaconID = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-7-8")
/// 2025-11-22T08:00:00Z.
public let startTime = Instant(seconds: 1_763_798_400)

/// A measurement as an agent publishes it.
public func measurementJSON(_ beacon: BeaconID, node: String, room: String, distance: Double?, proximity: String? = nil) -> String {
    let proximityText = proximity ?? (distance.map { $0 < 0.5 ? "immediate" : $0 < 3 ? "near" : "far" } ?? "unknown")
    let payload = MeasurementPayload(
        id: beacon.rawValue, beacon: beacon, node: node, room: room, rssi: -70, rssiFiltered: -69.5, sigma: 1.5,
        measuredPower: -59, distance: distance, proximity: Proximity(rawValue: proximityText) ?? .unknown,
        address: nil, timestamp: startTime)
    return payload.json
}
