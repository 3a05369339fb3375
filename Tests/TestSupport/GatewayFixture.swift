import Foundation

/// `Tests/Fixtures/Gateways/theengs-2.5.0.jsonl`: what Theengs Gateway and OpenMQTTGateway publish
/// for real advertisements, made by their own code (TheengsDecoder 2.5.0, Theengs Gateway 1.8.0;
/// `bash .ci/theengs-fixture` made it and `--check` keeps it so). One entry per advert.
public struct GatewayFixture: Sendable {
    public struct Message: Sendable, Hashable {
        public var topic: String
        /// The exact bytes the gateway published.
        public var payload: String
    }

    public struct Advert: Sendable {
        /// `capture record N` or what was made up.
        public var source: String
        /// The id of ours the advert's bytes carry (read by the generator from the bytes), nil for none.
        public var expect: String?
        /// The advertiser's address as the gateways write it.
        public var address: String
        public var theengs: [Message]
        public var openMQTTGateway: [Message]
    }

    public static let relativePath = "Tests/Fixtures/Gateways/theengs-2.5.0.jsonl"

    /// Every advert of the fixture; throws naming the line that is not as the generator writes it.
    public static func adverts() throws -> [Advert] {
        let path = RecordedData.packageRoot().appendingPathComponent(relativePath).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").enumerated().map { index, line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let source = object["source"] as? String, let address = object["address"] as? String,
                let theengs = object["theengs"] as? [[String: String]], let omg = object["openmqttgateway"] as? [[String: String]]
            else { throw Malformed(line: index + 1) }
            func messages(_ list: [[String: String]]) throws -> [Message] {
                try list.map {
                    guard let topic = $0["topic"], let payload = $0["payload"] else { throw Malformed(line: index + 1) }
                    return Message(topic: topic, payload: payload)
                }
            }
            return Advert(source: source, expect: object["expect"] as? String, address: address,
                          theengs: try messages(theengs), openMQTTGateway: try messages(omg))
        }
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let line: Int
        public var description: String { "\(relativePath):\(line): not a line .ci/theengs-fixture writes" }
    }
}
