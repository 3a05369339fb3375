import Foundation
import TestSupport
import Testing

/// `presence-bench fleet` as Sources/PresenceAggregator/PresenceAggregator.docc/Scaling.md runs it, on a tiny site (4 nodes × 20 beacons, a few
/// seconds): the debug build's figures are not worth quoting, but every figure must be there and
/// make sense — the real broker, the real aggregator process, every move decided.
@Suite struct FleetBenchTests {
    /// On either transport of the aggregator's (`unix`: the broker's Unix-domain socket).
    @Test(arguments: ["tcp", "unix"])
    func tinyFleetPrintsEveryFigure(transport: String) throws {
        let bench = try BuildProducts.executable(named: "presence-bench")
        let aggregator = try BuildProducts.executable(named: "presence-aggregator")
        let result = try ToolRunner.run(bench, [
            "fleet", "--nodes", "4", "--beacons", "20", "--nodes-per-beacon", "3", "--rate", "60",
            "--duration", "4", "--deadline", "1", "--moving", "0.5", "--move-every", "3", "--aggregator", aggregator,
            "--aggregator-transport", transport,
        ], separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["nodes"] as? Int == 4)
        #expect(json["beacons"] as? Int == 20)
        // 20 beacons × 3 nodes at 60 per pair per minute: 60 messages/s, plus the moves' bursts.
        let perSecond = try #require(json["messagesPerSecond"] as? Double)
        #expect(perSecond > 50 && perSecond < 120)
        let p50 = try #require(json["decisionLagP50Ms"] as? Double)
        let p99 = try #require(json["decisionLagP99Ms"] as? Double)
        // Beyond the dwell: at least 0 (never before it was due), at most one tick plus slack.
        #expect(p50 >= 0 && p50 <= p99 && p99 < 2_000)
        #expect(json["dropped"] as? Int == 0)
        #expect((json["moves"] as? Int ?? 0) > 0)
        let resident = try #require(json["aggregatorResidentMB"] as? Double)
        #expect(resident > 5 && resident < 500)
        #expect(json["aggregatorTransport"] as? String == transport)
        let user = try #require(json["aggregatorUserCPUMicrosecondsPerMessage"] as? Double)
        let system = try #require(json["aggregatorSystemCPUMicrosecondsPerMessage"] as? Double)
        let total = try #require(json["aggregatorCPUMicrosecondsPerMessage"] as? Double)
        #expect(abs(user + system - total) < 0.2)
        // No warning about a TCP option on the socket (libmosquitto's "Unable to set TCP_NODELAY").
        #expect(!((json["aggregatorLog"] as? String) ?? "").contains("TCP_NODELAY"))
    }
}
