import Testing
@testable import BeaconCore

/// Bytes of a JSON text, as they arrive in an MQTT payload.
func payload(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The rendered error (`path: message`) a regions message is rejected with; nil when accepted.
func regionsError(_ text: String) -> String? {
    do {
        _ = try RegionsConfig.parse(payload(text))
        return nil
    } catch {
        return error.description
    }
}

/// A regions message with `regions` as the body of its array.
func regionsMessage(_ regions: String, revision: Int = 7) -> String {
    "{\"revision\":\(revision),\"regions\":[\(regions)]}"
}

let officeUUID = "fda50693-a4e2-4fb1-afcf-c6eb07647825"

func topicID(_ text: String) throws -> TopicLevelID {
    try #require(TopicLevelID(text))
}
