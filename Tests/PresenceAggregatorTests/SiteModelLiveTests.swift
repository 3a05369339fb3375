import BeaconCore
import RoomDecisions
import PresenceAggregator
import TestSupport
import Testing

/// The live aggregator with a site model decides the rooms `replay --model` decides, on the same
/// measurements: a SAL recording's published measurements (as `run --record` would have written
/// them), decided by a model learned from the other four recordings.
@Suite struct SiteModelLiveTests {
    @Test func liveAggregatorDecidesAsReplayWithTheModel() throws {
        let directory = try RecordedData.path("traces-sal")
        let names = [
            "sal-car_sensor_1_measurement_1", "sal-car_sensor_1_measurement_2", "sal-car_sensor_1_measurement_3",
            "sal-car_sensor_2_measurement_1", "sal-walk_sensor_1_measurement_1",
        ]
        let recordings = try SiteModelEvaluation.loadRecordings(
            directory: directory, names: names.flatMap { [$0 + ".trace.csv", $0 + ".truth.csv"] })
        let model = try #require(SiteModelEvaluation.learn(Array(recordings.filter { $0.name != names[1] })))

        // What the nodes published during the held-out recording, as a recorded trace.
        var lines: [String] = []
        try TraceReplayRunner.run(path: directory + "/" + names[1] + ".trace.csv", output: .published) { lines.append($0) }
        let recorded = try temporaryFile(lines.joined(separator: "\n") + "\n", name: "recorded.trace.csv")
        let samples = try TraceFile.samples(path: recorded)
        #expect(samples.count > 200)

        // replay --model
        var replayRooms: [String] = []
        try TraceReplayRunner.run(path: recorded, output: .decisions, model: model) { line in
            let fields = line.split(separator: ",")
            if fields.count >= 3, fields[0] != "time" { replayRooms.append(String(fields[2])) }
        }

        // The live core, given the same measurements at the same times and ticked when the replay ticks.
        var configuration = AggregatorConfiguration.default
        configuration.siteModel = model
        configuration.homeAssistantDiscovery = false
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        var liveRooms: [String] = []
        func collect(_ publications: [AggregatorPublication]) {
            for publication in publications where publication.topic == "presence/locations/mn/room" {
                liveRooms.append(publication.payload)
            }
        }
        var lastTick: Instant?
        for sample in samples {
            if var tick = lastTick {
                while tick.advanced(by: 1) < sample.time {
                    tick = tick.advanced(by: 1)
                    collect(core.tick(at: tick))
                }
            }
            collect(core.tick(at: sample.time))
            if lastTick.map({ sample.time > $0 }) ?? true { lastTick = sample.time }
            let publication = try #require(sample.publication)
            let measurement = ReceivedMeasurement(
                beacon: sample.beacon, node: sample.node, room: sample.room, rssiFiltered: publication.rssiFiltered,
                sigma: 0, distance: publication.distance, proximity: publication.proximity)
            collect(core.receive(measurement, at: sample.time))
        }
        #expect(replayRooms.count >= 3, "\(replayRooms)")
        #expect(liveRooms == replayRooms)
        #expect(Set(liveRooms).isSubset(of: ["inside", "outside"]))
    }
}
