import Testing
@testable import BeaconCore

@Suite struct ConfigTopicLevelIDTests {
    @Test func acceptsLowercaseDigitsUnderscoreAndHyphen() {
        #expect(TopicLevelID("kitchen-1")?.rawValue == "kitchen-1")
        #expect(TopicLevelID("a_b-0") != nil)
        #expect(TopicLevelID(String(repeating: "x", count: 64)) != nil)
        #expect(TopicLevelID("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-65535-65535") != nil)
    }

    @Test func rejectsAnythingThatCouldBreakATopic() {
        for bad in ["", "a/b", "+", "#", "a\u{0}", "Kitchen", "a b", "k\u{e4}che", "a.b", String(repeating: "x", count: 65)] {
            #expect(TopicLevelID(bad) == nil, "\(bad) should be rejected")
        }
    }
}
