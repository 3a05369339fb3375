import MQTTClient
import Testing

@Suite("Topic filter matching")
struct TopicFilterTests {
    struct Case: Sendable, CustomStringConvertible {
        let filter: String
        let topic: String
        let matches: Bool
        var description: String { "\(filter) ~ \(topic)" }
    }

    static let cases: [Case] = [
        // Exact levels.
        Case(filter: "presence/nodes/kitchen/status", topic: "presence/nodes/kitchen/status", matches: true),
        Case(filter: "presence/nodes/kitchen/status", topic: "presence/nodes/hall/status", matches: false),
        Case(filter: "presence/nodes", topic: "presence/nodes/kitchen", matches: false),
        Case(filter: "presence/nodes/kitchen", topic: "presence/nodes", matches: false),
        Case(filter: "a/b", topic: "a/b/", matches: false),
        Case(filter: "A/b", topic: "a/b", matches: false),
        // '+' is exactly one level, possibly empty.
        Case(filter: "presence/+/status", topic: "presence/kitchen/status", matches: true),
        Case(filter: "presence/+/status", topic: "presence/kitchen/hall/status", matches: false),
        Case(filter: "presence/+/status", topic: "presence//status", matches: true),
        Case(filter: "presence/+", topic: "presence", matches: false),
        Case(filter: "+/+", topic: "/finance", matches: true),
        Case(filter: "/+", topic: "/finance", matches: true),
        Case(filter: "+", topic: "/finance", matches: false),
        Case(filter: "+", topic: "finance", matches: true),
        // '#' is the parent and everything below.
        Case(filter: "presence/#", topic: "presence", matches: true),
        Case(filter: "presence/#", topic: "presence/nodes/kitchen/status", matches: true),
        Case(filter: "presence/#", topic: "presenceX/a", matches: false),
        Case(filter: "#", topic: "anything/at/all", matches: true),
        Case(filter: "presence/+/regions/#", topic: "presence/k/regions/office/state", matches: true),
        Case(filter: "presence/+/regions/#", topic: "presence/k/config", matches: false),
        // Wildcards at the start do not match $-topics.
        Case(filter: "#", topic: "$SYS/broker/uptime", matches: false),
        Case(filter: "+/broker/uptime", topic: "$SYS/broker/uptime", matches: false),
        Case(filter: "$SYS/#", topic: "$SYS/broker/uptime", matches: true),
        Case(filter: "$SYS/+/uptime", topic: "$SYS/broker/uptime", matches: true),
        // Non-ASCII levels compare by bytes.
        Case(filter: "räume/+", topic: "räume/küche", matches: true),
    ]

    @Test("matches as MQTT 3.1.1 §4.7 says", arguments: cases)
    func matching(_ testCase: Case) throws {
        let filter = try TopicFilter(testCase.filter)
        #expect(filter.matches(testCase.topic) == testCase.matches)
    }

    @Test(
        "rejects malformed filters",
        arguments: ["", "a/#/b", "a#", "a/b#", "a+/b", "a/+b", "#/a", "a/\u{0}/b"])
    func rejects(_ filter: String) {
        #expect(throws: MQTTError.self) { try TopicFilter(filter) }
    }

    @Test("accepts well-formed filters", arguments: ["#", "+", "a/+/b/#", "/", "//", "+/+/+", "$SYS/#"])
    func accepts(_ filter: String) throws {
        let parsed = try TopicFilter(filter)
        #expect(parsed.rawValue == filter)
    }

    @Test("a topic to publish to may not have wildcards", arguments: ["a/+", "a/#", "#", "", "a\u{0}"])
    func topicNames(_ topic: String) {
        #expect(throws: MQTTError.self) { try TopicFilter.validateTopicName(topic) }
    }

    @Test("reconnect backoff doubles from the initial delay up to the cap")
    func backoff() {
        let policy = MQTTReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(30))
        let delays = (0..<8).map { policy.delay(afterFailures: $0) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
        #expect(policy.delay(afterFailures: 10_000) == .seconds(30))
        let fast = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
        #expect(fast.delay(afterFailures: 0) == .milliseconds(50))
        #expect(fast.delay(afterFailures: 3) == .milliseconds(400))
        #expect(fast.delay(afterFailures: 4) == .milliseconds(500))
    }
}
