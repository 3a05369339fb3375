import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions

/// How many locations the aggregator publishes per measurement on the
/// recordings, under the location refresh rule (`LocationRefreshRule.default`) and under the old
/// rule (every change of 0.1 m, `.everyTenth`). Each recording's published measurements (what the
/// nodes' filters would have sent) go through an `AggregatorCore` on the recording's clock, with a
/// tick every second; what is published is counted by kind. The room topics and the events do not
/// depend on the rule: the command checks that both rules publish them alike.
struct LocationPublicationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locations",
        abstract: "Counts the location publications per measurement on every site, the refresh rule against the old 0.1 m rule; prints JSON."
    )

    @Option(help: "The shared data directory (traces/, traces-sal/, traces-flat/).")
    var data = "data"

    struct Count: Codable {
        var measurements = 0
        var locations = 0
        var roomTopics = 0
        var events = 0
        var roomLists = 0
    }

    func run() throws {
        var sites: [(name: String, files: [String], dropped: Set<String>)] = []
        for site in EvaluateCommand.sharedSites {
            let directory = "\(data)/\(site.directory)"
            let files = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasSuffix(".trace.csv") }.sorted().map { "\(directory)/\($0)" }
            sites.append((site.name, files, []))
        }
        let standIn = EvaluateCommand.standIn
        if let flat = sites.first(where: { $0.name == standIn.from }) {
            sites.append((standIn.name, flat.files, standIn.droppedNodes))
        }
        var out: [String: [String: Count]] = [:]
        for site in sites {
            var counts: [String: Count] = [:]
            for file in site.files {
                let published = try Self.published(path: file).filter { !site.dropped.contains($0.evidence.node) }
                for (name, rule) in [("everyTenth", LocationRefreshRule.everyTenth), ("ratio", LocationRefreshRule.default)] {
                    let count = Self.count(published, rule: rule)
                    var total = counts[name] ?? Count()
                    total.measurements += count.measurements
                    total.locations += count.locations
                    total.roomTopics += count.roomTopics
                    total.events += count.events
                    total.roomLists += count.roomLists
                    counts[name] = total
                }
            }
            guard let before = counts["everyTenth"], let after = counts["ratio"],
                before.roomTopics == after.roomTopics, before.events == after.events
            else { throw BenchProcess.Failure("\(site.name): the rule changed the room topics or the events") }
            out[site.name] = counts
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        print(String(decoding: try encoder.encode(out), as: UTF8.self))
    }

    /// What the nodes published on the recording at `path`, in order.
    static func published(path: String) throws -> [SiteModelLearner.Measurement] {
        var replay = TraceReplay()
        replay.keepsPublished = true
        var parser = TraceParser()
        var all: [SiteModelLearner.Measurement] = []
        try TraceFile.forEachLine(path: path) { (_, line) throws(TraceError) in
            guard let sample = try parser.parse(line: line) else { return }
            _ = replay.step(sample)
            all += replay.takePublished()
        }
        return all
    }

    /// The publications of an aggregator that received `published`, by kind.
    static func count(_ published: [SiteModelLearner.Measurement], rule: LocationRefreshRule) -> Count {
        var configuration = AggregatorConfiguration(homeAssistantDiscovery: false)
        configuration.locationRefresh = rule
        var core = AggregatorCore(configuration: configuration, softwareVersion: "bench")
        let topics = configuration.topics
        var count = Count()
        func tally(_ publications: [AggregatorPublication]) {
            for publication in publications {
                let topic = publication.topic
                if topic == topics.events {
                    count.events += 1
                } else if topic.hasPrefix("\(topics.root)/rooms/") {
                    count.roomLists += 1
                } else if topic.hasPrefix("\(topics.root)/locations/") {
                    if topic.hasSuffix("/room") { count.roomTopics += 1 } else { count.locations += 1 }
                }
            }
        }
        var nextTick: Double?
        for measurement in published {
            let time = measurement.time
            while let tick = nextTick, tick <= time.seconds {
                tally(core.tick(at: Instant(seconds: tick)))
                nextTick = tick + 1
            }
            if nextTick == nil { nextTick = time.seconds.rounded(.up) }
            let evidence = measurement.evidence
            let received = ReceivedMeasurement(
                beacon: evidence.beacon, node: evidence.node, room: evidence.room, rssiFiltered: evidence.rssiFiltered,
                sigma: evidence.sigma, distance: evidence.distance, proximity: evidence.proximity, rssi: evidence.rssi)
            tally(core.receive(received, at: time))
            count.measurements += 1
        }
        return count
    }
}
