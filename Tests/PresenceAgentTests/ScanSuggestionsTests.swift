import BeaconCore
import BluetoothHCI
import Foundation
import Testing
import TestSupport
@testable import PresenceAgent

/// `scan --suggest` on the real capture: the Govee sensors' iBeacons become config/beacons entries
/// that both the agent's YAML reader and its config/beacons validation accept, strongest first, and
/// the identity several sensors share is flagged.
@Suite struct ScanSuggestionsTests {
    static let shared = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"
    static let single = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20597-62207"

    func captureSuggestions() throws -> ScanSuggestions {
        var options = FeedOptions()
        options.speed = 0
        let feed = try AdvertisementFeeds.open(.btsnoop(path: try RecordedData.path(RecordedData.horizonCapture)), options: options)
        var suggestions = ScanSuggestions()
        while try feed.poll(timeout: 0, { suggestions.add($0) }) {}
        return suggestions
    }

    @Test func theCapturesTwoIdentitiesStrongestFirstTheSharedOneFlagged() throws {
        let suggestions = try captureSuggestions()
        #expect(suggestions.adverts == 412)
        let heard = suggestions.strongestFirst
        #expect(heard.map(\.beacon.rawValue).sorted() == [Self.shared, Self.single])
        #expect(zip(heard, heard.dropFirst()).allSatisfy { $0.meanRSSI! >= $1.meanRSSI! })
        let shared = try #require(heard.first { $0.beacon.rawValue == Self.shared })
        // Ten scan responses of one identity from several Govee sensors (a4:c1:38:…).
        #expect(shared.adverts == 10)
        #expect(shared.addresses.count == 3)
        #expect(shared.isShared)
        #expect(shared.addresses.keys.allSatisfy { $0.description.hasPrefix("a4:c1:38:") })
        #expect(shared.measuredPower == -62)
        #expect(heard.first { $0.beacon.rawValue == Self.single }?.isShared == false)

        let report = suggestions.report(source: "btsnoop:capture")
        #expect(report.contains("# WARNING: 3 devices send this one identity; the agent takes them for ONE beacon"))
        #expect(report.contains("mosquitto_pub -h BROKER -u operator -P PASSWORD -q 1 -r -t presence/config/beacons"))
    }

    @Test func theYAMLIsWhatTheAgentsFileReads() throws {
        let report = try captureSuggestions().report(source: "btsnoop:capture")
        // What a user copies: from `beacons:` to the blank line after the entries.
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "beacons:"))
        let end = lines[start...].firstIndex(of: "") ?? lines.endIndex
        let yaml = "node: kitchen-1\nroom: kitchen\n" + lines[start..<end].joined(separator: "\n") + "\n"
        let directory = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/presence-agent.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        var configuration = AgentConfiguration()
        configuration.apply(file: path)
        #expect(configuration.problems.isEmpty, "\(configuration.problems)\n\(yaml)")
        #expect(Set(configuration.knownBeacons.map(\.beacon.rawValue)) == [Self.shared, Self.single])
        #expect(configuration.knownBeacons.allSatisfy { $0.alias != nil && $0.name != nil })
    }

    @Test func theMessageIsAcceptedAndMakesTheNodeMeasureThem() throws {
        let report = try captureSuggestions().report(source: "btsnoop:capture")
        // The -m '…' argument of the printed line (no quote inside: the capture's names have none).
        let quoted = try #require(report.split(separator: "\n").first { $0.hasPrefix("  -m '") })
        let message = String(quoted.dropFirst("  -m '".count).dropLast())
        let start = Instant(seconds: 0)
        var core = AgentCore(settings: AgentCore.Settings(node: TopicLevelID("kitchen-1")!, room: TopicLevelID("kitchen")!), at: start)
        let answer = core.receiveConfiguration(topic: "presence/config/beacons", payload: Array(message.utf8), at: start)
        let status = answer.compactMap { if case .publish(let p) = $0, p.topic.hasSuffix("config/status") { p.text } else { nil } }
        #expect(status.first?.hasPrefix(#"{"status":"ok","topic":"presence/config/beacons","revision":1,"beacons":2,"#) == true, "\(status)")
    }

    @Test func aliasesAreTopicLevelsAndQuotingIsSafe() {
        #expect(ScanSuggestions.alias("GVH5075_6FAB") == "gvh5075_6fab")
        #expect(ScanSuggestions.alias("Alice's Keys!") == "alice-s-keys")
        #expect(ScanSuggestions.alias("✓✓") == "")
        #expect(ScanSuggestions.yamlQuoted("a \"b\" \\ c\n") == #""a \"b\" \\ c ""#)
        #expect(ScanSuggestions.shellQuoted("it's") == #"'it'\''s'"#)
        #expect(ScanSuggestions.message([("ibeacon-x", "a", "Bob's \"tag\"")]) == #"{"revision":1,"beacons":[{"beacon":"ibeacon-x","id":"a","name":"Bob's \"tag\""}]}"#)
    }
}
