import BeaconCore
import ConfigFile

extension KnownBeaconsConfig {
    /// A `beacons:` list of a program's YAML file (the agent's and the aggregator's), validated
    /// exactly like the `<root>/config/beacons` message (MQTT.md): the YAML is turned into that JSON
    /// and parsed by the same code, so errors read `beacons[1].id: 'Alice' is not a valid id (…)`
    /// and a key is never quoted back.
    static func beacons(yaml node: YAMLNode, crypto: (any IdentityKeyCrypto)? = nil) throws(ConfigError) -> [KnownBeacon] {
        let listPath = FieldPath.root.appending("beacons")
        guard let sequence = node.sequence else {
            throw ConfigError(.wrongType, path: listPath, message: "expected a list of beacons")
        }
        var elements: [String] = []
        for (index, element) in sequence.enumerated() {
            let path = listPath.appending(index: index)
            guard let mapping = element.mapping else {
                throw ConfigError(.wrongType, path: path, message: "expected a mapping with beacon (or irk), id, name")
            }
            var object = JSONObjectWriter()
            for (key, _, value) in mapping.entries {
                guard let scalar = value.scalar else {
                    throw ConfigError(.wrongType, path: path.appending(key), message: "expected a single value")
                }
                if scalar.isNull {
                    object.addNull(key)
                } else if key != "irk", scalar.style == .plain, let integer = integer(scalar.text) {
                    object.add(key, integer)
                } else if key != "irk", scalar.style == .plain, let number = Double(scalar.text), number.isFinite {
                    object.add(key, number, decimals: 3)
                } else {
                    // A key stays text even when it looks like a number (32 decimal digits are hex).
                    object.add(key, scalar.text)
                }
            }
            elements.append(object.json)
        }
        let json = "{\"revision\":0,\"beacons\":" + JSONObjectWriter.array(elements) + "}"
        return try KnownBeaconsConfig(json: try JSONParser.parse(Array(json.utf8)), crypto: crypto).beacons
    }

    /// An unquoted whole number (`-59`) becomes a JSON number, as YAML would type it; anything else
    /// stays text and the beacon's own check names it.
    private static func integer(_ text: String) -> Int? {
        let digits = text.utf8.first == UInt8(ascii: "-") || text.utf8.first == UInt8(ascii: "+") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }
}
