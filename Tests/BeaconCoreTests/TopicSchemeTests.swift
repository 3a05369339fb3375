import Testing
@testable import BeaconCore

@Suite struct TopicSchemeTests {
    let node = TopicLevelID("kitchen-1")!
    let region = TopicLevelID("office")!

    @Test func agentTopicsFollowTheContract() {
        let topics = TopicScheme.default
        #expect(topics.nodeStatus(node) == "presence/nodes/kitchen-1/status")
        #expect(topics.nodeInfo(node) == "presence/nodes/kitchen-1/info")
        #expect(topics.nodeTelemetry(node) == "presence/nodes/kitchen-1/telemetry")
        #expect(topics.measurement("alice-keys", node) == "presence/beacons/alice-keys/kitchen-1")
        #expect(topics.regionState(node, region) == "presence/nodes/kitchen-1/regions/office/state")
        #expect(topics.regionEvent(node, region) == "presence/nodes/kitchen-1/regions/office/event")
        #expect(topics.regionRanging(node, region) == "presence/nodes/kitchen-1/regions/office/ranging")
        #expect(topics.configStatus(node) == "presence/nodes/kitchen-1/config/status")
        #expect(topics.nodeConfig(node) == "presence/nodes/kitchen-1/config")
        #expect(topics.configRegions == "presence/config/regions")
        #expect(topics.configBeacons == "presence/config/beacons")
    }

    @Test func aggregatorTopicsFollowTheContract() {
        let topics = TopicScheme(root: "hq/presence")!
        #expect(topics.aggregatorStatus == "hq/presence/aggregator/status")
        #expect(topics.location("alice-keys") == "hq/presence/locations/alice-keys")
        #expect(topics.locationRoom("alice-keys") == "hq/presence/locations/alice-keys/room")
        #expect(topics.room("kitchen") == "hq/presence/rooms/kitchen")
        #expect(topics.events == "hq/presence/events")
        #expect(topics.allMeasurements == "hq/presence/beacons/+/+")
    }

    @Test func rootsThatCouldEscapeTheTreeAreRefused() {
        for bad in ["", "/presence", "presence/", "a//b", "pre+sence", "#", "Presence", "pres\u{0}ence", "a b"] {
            #expect(TopicScheme(root: bad) == nil, "accepted root '\(bad)'")
        }
        #expect(TopicScheme(root: "site_1/presence-2") != nil)
    }

    @Test func incomingTopicsAreTakenApartExactly() {
        let topics = TopicScheme(root: "hq/presence")!
        #expect(topics.nodeOfStatusTopic("hq/presence/nodes/kitchen-1/status") == "kitchen-1")
        #expect(topics.nodeOfStatusTopic("hq/presence/nodes/a/b/status") == nil)
        #expect(topics.nodeOfStatusTopic("presence/nodes/kitchen-1/status") == nil)
        #expect(topics.nodeOfInfoTopic("hq/presence/nodes/kitchen-1/info") == "kitchen-1")
        #expect(topics.nodeOfInfoTopic("hq/presence/nodes/kitchen-1/status") == nil)
        #expect(topics.nodeOfInfoTopic("hq/presence/nodes//info") == nil)
        #expect(topics.measurementTopicParts("hq/presence/beacons/alice/kitchen-1")! == ("alice", "kitchen-1"))
        #expect(topics.measurementTopicParts("hq/presence/beacons/alice/kitchen-1/x") == nil)
        #expect(topics.measurementTopicParts("hq/presence/beacons//kitchen-1") == nil)
    }

    /// The node read from the bytes is the node of `measurementTopicParts`, and nil where it is nil.
    @Test func measurementTopicNodeIsTheNodeOfTheParts() {
        let topics = TopicScheme(root: "hq/presence")!
        let cases = [
            "hq/presence/beacons/alice/kitchen-1", "hq/presence/beacons/alice/kitchen-1/x", "hq/presence/beacons//kitchen-1",
            "hq/presence/beacons/alice/", "hq/presence/beacons/alice", "hq/presence/beacons/", "hq/presence/beacons",
            "hq/presence/beacon/alice/kitchen-1", "hq/presencE/beacons/alice/kitchen-1", "presence/beacons/alice/kitchen-1",
            "hq/presence/beacons/ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-2/a-very-long-node-name-beyond-fifteen",
            "hq/presence/beacons/a/b/c", "hq/presence/beacons/a//", "hq/presence/beacons/ä/küche", "",
        ]
        for topic in cases {
            #expect(topics.measurementTopicNode(topic) == topics.measurementTopicParts(topic)?.node, "\(topic)")
        }
    }
}
