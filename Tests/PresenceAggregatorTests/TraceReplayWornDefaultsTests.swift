import BeaconCore
import PresenceAggregator
import RoomDecisions
import Testing

/// Issue 40, sixth round, defaults: a worn tag heard by our agents, which report its rises, is
/// decided by the rise rule; heard by nodes that report none (ESPresense nodes, gateways, older
/// agents), by the worn profile as before, so it is never left 13 s behind a move.
@Suite struct TraceReplayWornDefaultsTests {
    /// When the default replay first decides the worn band in the hall, seconds after the walk
    /// (`TraceReplayWornRiseTests.trace`: kitchen for 30 s, then the hall). `foreign`: nodes that
    /// report no rises; `riseRule` nil: the worn profile only, as before this round.
    func switchDelay(foreign: Set<String> = [],
                     riseRule: SwitchingRule? = .wornRise) throws -> Double? {
        let path = try temporaryFile(TraceReplayWornRiseTests.trace)
        var rows: [String] = []
        try TraceReplayRunner.run(
            path: path, output: .decisions, wornRiseRule: riseRule,
            knownBeacons: [KnownBeacon(beacon: "band", worn: true)], foreignNodes: foreign
        ) { rows.append($0) }
        let hall = rows.dropFirst().map { $0.split(separator: ",").map(String.init) }.first { $0[2] == "hall" }
        return hall.flatMap { Double($0[0]) }.map { $0 - 30 }
    }

    @Test("between two of our agents the defaults switch on the hall's rise report within a second")
    func ourAgentsSwitchOnTheRise() throws {
        let delay = try #require(try switchDelay())
        #expect(delay <= 1)
        // Faster than the worn profile alone, which waits for its fast clock (1.1 s).
        let before = try #require(try switchDelay(riseRule: nil))
        #expect(delay < before)
    }

    @Test("between nodes that report no rises the defaults switch exactly as the worn profile did, within 3 s")
    func foreignNodesKeepTheWornProfile() throws {
        let delay = try #require(try switchDelay(foreign: ["k1", "h1"]))
        let before = try #require(try switchDelay(foreign: ["k1", "h1"], riseRule: nil))
        #expect(delay == before)
        #expect(delay <= 3)
    }

    @Test("into a foreign node's room from one of our agents' the fast clock still switches within 4 s")
    func mixedSiteStillSwitches() throws {
        let delay = try #require(try switchDelay(foreign: ["h1"]))
        // Our agent publishes the worn band by its level (`WornLevel`): fewer measurements for the
        // fast clock than the track's policy gave it (3 s before).
        #expect(delay <= 4)
    }
}
