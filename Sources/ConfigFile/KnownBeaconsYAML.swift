import BeaconCore

/// A `beacons:` list of a program's YAML file (the agent's and the aggregator's), validated exactly
/// like the `<root>/config/beacons` message (docs/MQTT.md): the YAML is turned into that JSON and parsed
/// by the same code, so errors read `beacons[1].id: 'Alice' is not a valid id (…)`, a key is never
/// quoted back, and both programs accept and refuse the same lists.
public enum KnownBeaconsYAML {
    /// What is wrong with the list: the field as the config message would name it, and the line of
    /// the YAML value (or key) it comes from.
    public struct Failure: Error, Sendable {
        public var field: String
        public var message: String
        public var line: Int
    }

    /// The known beacons of `node` (the value of the `beacons:` key). `crypto` resolves phones and
    /// watches listed by their IRK; without it an `irk` entry is refused as the message's check refuses it.
    public static func beacons(_ node: YAMLNode, crypto: (any IdentityKeyCrypto)? = nil) throws(Failure) -> [KnownBeacon] {
        guard let sequence = node.sequence else {
            throw Failure(field: "beacons", message: "expected a list of beacons", line: node.line)
        }
        var elements: [String] = []
        for (index, element) in sequence.enumerated() {
            let path = "beacons[\(index)]"
            guard let mapping = element.mapping else {
                throw Failure(field: path, message: "expected a mapping with beacon (or irk), id, name", line: element.line)
            }
            var object = JSONObjectWriter()
            for (key, keyLine, value) in mapping.entries {
                guard let scalar = value.scalar else {
                    throw Failure(field: "\(path).\(key)", message: "expected a single value", line: keyLine)
                }
                if scalar.isNull {
                    object.addNull(key)
                } else if key != "irk", scalar.style == .plain, let flag = boolean(scalar.text) {
                    object.add(key, flag)  // worn: true
                } else if key != "irk", scalar.style == .plain, let integer = integer(scalar.text) {
                    object.add(key, integer)
                } else if key != "irk", scalar.style == .plain, let number = Double(scalar.text), number.isFinite {
                    object.add(key, number, decimals: 3)  // a device's own awayTimeout may have a fraction
                } else {
                    // A key stays text even when it looks like a number (32 decimal digits are hex).
                    object.add(key, scalar.text)
                }
            }
            elements.append(object.json)
        }
        let json = "{\"revision\":0,\"beacons\":" + JSONObjectWriter.array(elements) + "}"
        do {
            return try KnownBeaconsConfig(json: try JSONParser.parse(Array(json.utf8)), crypto: crypto).beacons
        } catch {
            throw Failure(field: error.path.description, message: error.message, line: line(of: error.path, in: node) ?? node.line)
        }
    }

    /// An unquoted `true` or `false` (YAML 1.2's core forms) becomes a JSON boolean.
    static func boolean(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    /// An unquoted whole number (`-59`) becomes a JSON number, as YAML would type it; anything else
    /// stays text and the beacon's own check names it.
    static func integer(_ text: String) -> Int? {
        let digits = text.utf8.first == UInt8(ascii: "-") || text.utf8.first == UInt8(ascii: "+") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    /// The line of the value a JSON field path names inside the `beacons` list (`beacons[1].id`).
    static func line(of path: FieldPath, in beacons: YAMLNode) -> Int? {
        var node = beacons
        var line: Int?
        for component in path.components.dropFirst() {  // the first is `beacons` itself
            switch component {
            case .index(let index):
                guard let items = node.sequence, items.indices.contains(index) else { return line }
                node = items[index]
                line = node.line
            case .key(let key):
                guard let mapping = node.mapping, let value = mapping[key] else { return line }
                line = mapping.line(of: key)
                node = value
            }
        }
        return line
    }
}
