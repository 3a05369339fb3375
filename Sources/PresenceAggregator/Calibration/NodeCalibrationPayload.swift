import BeaconCore
import RoomDecisions

/// The site's node calibration as JSON: the retained payload of `<root>/calibration` and the file the
/// aggregator keeps it in across restarts (`NodeCalibrationFile`), one shape for both.
///
/// ```json
/// {"solvedAt": "2026-12-07T21:00:00.000Z", "basis": "statedPower", "residualScale": 0.42,
///  "nodes": {"kitchen": {"offset": -3.1, "power": 0.8, "standardError": 0.4, "pairs": 5, "samples": 3000,
///                        "confident": true},
///            "hall": {"offset": 2.0, "standardError": 1.6, "pairs": 1, "samples": 600, "confident": false,
///                     "reason": "1 path(s) heard both ways; 2 needed"}},
///  "rejections": [{"kind": "blockedPath", "subject": "hall→study", "reason": "…"}]}
/// ```
public enum NodeCalibrationPayload {
    /// The largest payload read: a site of a few hundred nodes is far under it.
    public static let maximumBytes = 1 << 20

    /// The calibration as one JSON object (no trailing newline), with where each confident offset
    /// is applied (`NodeCalibrationState.applications`; none in the file, where it is not kept).
    public static func json(_ calibration: NodeCalibration, applied: [String: NodeCalibrationState.Application] = [:]) -> String {
        var object = JSONObjectWriter()
        object.add("solvedAt", ISO8601Timestamp.string(from: calibration.solvedAt))
        object.add("basis", calibration.basis.rawValue)
        object.add("residualScale", calibration.residualScale, decimals: 2)
        var nodes = JSONObjectWriter()
        for (node, offset) in calibration.nodes.sorted(by: { $0.key < $1.key }) {
            var entry = JSONObjectWriter()
            entry.add("offset", offset.offset, decimals: 2)
            if let power = offset.power { entry.add("power", power, decimals: 2) }
            entry.add("standardError", offset.standardError.isFinite ? offset.standardError : 99, decimals: 2)
            entry.add("pairs", offset.pairs)
            entry.add("samples", offset.samples)
            entry.add("confident", offset.confident)
            switch applied[node] {
            case .agent?: entry.add("applied", "agent")
            case .aggregator?: entry.add("applied", "aggregator")
            case .operator(let own)?:
                entry.add("applied", "operator")
                entry.add("operatorOffset", own, decimals: 2)
            case nil: break
            }
            if let reason = offset.reason { entry.add("reason", reason) }
            nodes.addRaw(node, entry.json)
        }
        object.addRaw("nodes", nodes.json)
        object.addRaw("rejections", JSONObjectWriter.array(calibration.rejections.map { rejection in
            var entry = JSONObjectWriter()
            entry.add("kind", rejection.kind.rawValue)
            entry.add("subject", rejection.subject)
            entry.add("reason", rejection.reason)
            return entry.json
        }))
        return object.json
    }

    /// Reads a calibration back; the error names the field. Never traps.
    public static func parse(_ bytes: [UInt8]) throws(NodeCalibrationPayloadError) -> NodeCalibration {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, maximumBytes: maximumBytes, maximumDepth: 6) } catch {
            throw NodeCalibrationPayloadError(error.description)
        }
        guard case .object(let object) = value else { throw NodeCalibrationPayloadError("expected a JSON object") }
        var calibration = NodeCalibration()
        guard case .string(let solvedAt)? = object["solvedAt"], let instant = ISO8601Timestamp.instant(from: solvedAt) else {
            throw NodeCalibrationPayloadError("solvedAt: expected an ISO-8601 time")
        }
        calibration.solvedAt = instant
        guard case .string(let basisText)? = object["basis"], let basis = NodeCalibrationBasis(rawValue: basisText) else {
            throw NodeCalibrationPayloadError("basis: expected positions, statedPower or equalPower")
        }
        calibration.basis = basis
        calibration.residualScale = try number(object, "residualScale", in: "") ?? 0
        guard case .object(let nodes)? = object["nodes"] else { throw NodeCalibrationPayloadError("nodes: expected an object") }
        for node in nodes.keys {
            let path = "nodes." + node
            guard TopicLevelID.isValid(node), case .object(let entry)? = nodes[node] else {
                throw NodeCalibrationPayloadError("\(path): expected an object under a node id")
            }
            guard let offset = try number(entry, "offset", in: path), let standardError = try number(entry, "standardError", in: path),
                  case .bool(let confident)? = entry["confident"] else {
                throw NodeCalibrationPayloadError("\(path): offset, standardError and confident are required")
            }
            var reason: String?
            if case .string(let text)? = entry["reason"] { reason = text }
            calibration.nodes[node] = NodeOffset(
                offset: offset, power: try number(entry, "power", in: path), standardError: standardError,
                pairs: Int(try number(entry, "pairs", in: path) ?? 0), samples: Int(try number(entry, "samples", in: path) ?? 0),
                confident: confident, reason: reason)
        }
        if case .array(let rejections)? = object["rejections"] {
            for (index, item) in rejections.enumerated() {
                guard case .object(let entry) = item, case .string(let kindText)? = entry["kind"],
                      let kind = NodeCalibrationRejection.Kind(rawValue: kindText),
                      case .string(let subject)? = entry["subject"], case .string(let reason)? = entry["reason"] else {
                    throw NodeCalibrationPayloadError("rejections[\(index)]: expected kind, subject and reason")
                }
                calibration.rejections.append(NodeCalibrationRejection(kind: kind, subject: subject, reason: reason))
            }
        }
        return calibration
    }

    private static func number(_ object: JSONObject, _ key: String, in path: String) throws(NodeCalibrationPayloadError) -> Double? {
        switch object[key] {
        case nil: return nil
        case .number(let number)?:
            // Offsets beyond any controller's range are not a calibration.
            guard abs(number.double) <= 1e6 else { throw NodeCalibrationPayloadError("\(path.isEmpty ? "" : path + ".")\(key): \(number.literal) is out of range") }
            return number.double
        case let other?: throw NodeCalibrationPayloadError("\(path.isEmpty ? "" : path + ".")\(key): expected a number, got \(other.kindDescription)")
        }
    }
}

/// Why a calibration payload or file was not read.
public struct NodeCalibrationPayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
