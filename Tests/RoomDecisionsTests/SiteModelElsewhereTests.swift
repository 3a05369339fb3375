import BeaconCore
import RoomDecisions
import Testing

/// A home's walk with truth in its receivers' rooms only: `a` stands in room `A`, `b` in room `B`,
/// and between them a hall with no receiver, where both hear the beacon at −70 dB and the truth has
/// no rows (a person's walk labelled where the receivers are). `rooms` gives each second's place.
private func walk(_ rooms: [String]) -> (measurements: [SiteModelLearner.Measurement], truth: [TruthSample]) {
    let beacon = BeaconID(rawValue: "b1")
    let measurements = rooms.enumerated().flatMap { second, place in
        ["a", "b"].enumerated().map { offset, node in
            SiteModelLearner.Measurement(time: Instant(seconds: Double(second) + 0.1 * Double(offset)), evidence: NodeEvidence(
                beacon: beacon, node: node, room: node.uppercased(),
                rssiFiltered: place == "hall" ? -70 : (node.uppercased() == place ? -60 : -80),
                sigma: 1, distance: 2, proximity: .near))
        }
    }
    let truth = rooms.enumerated().compactMap { second, place in
        place == "hall" ? nil : TruthSample(time: Instant(seconds: Double(second)), beacon: beacon, room: place)
    }
    return (measurements, truth)
}

private func learned(_ rooms: [String], _ parameters: SiteModelParameters = .default, levels: Bool? = nil) -> SiteModel? {
    var learner = SiteModelLearner(parameters: parameters)
    let recording = walk(rooms)
    learner.add(measurements: recording.measurements, truth: recording.truth)
    return learner.model(levels: levels)
}

private func run(_ room: String, _ seconds: Int) -> [String] { Array(repeating: room, count: seconds) }

/// A to B through the hall and back, twice: the hall is walked 80 s of 320.
private let houseWalk = (0..<2).flatMap { _ in run("A", 50) + run("hall", 20) + run("B", 50) + run("hall", 20) } + run("A", 40)

/// The rooms `model` decides, in order, for a beacon going through `places` (a second each), the
/// physics decision naming `B` throughout (the model serves every room, so physics never shows).
private func decisions(_ model: SiteModel, _ places: [String]) -> [String] {
    var decider = SiteModelDecider(model: model)
    var rooms: [String] = []
    let recording = walk(places)
    for measurement in recording.measurements {
        let physics = RoomDecision(beacon: measurement.evidence.beacon, room: "B", distance: 2, proximity: .near, node: nil,
                                   since: Instant(seconds: 0), confidence: 0.5, candidates: [:])
        if let decision = decider.update(measurement.evidence, physics: physics, at: measurement.time) { rooms.append(decision.room) }
    }
    return rooms
}

@Suite struct SiteModelElsewhereTests {
    @Test func timeTheTruthNamesNoRoomForIsLearnedAsElsewhere() throws {
        let model = try #require(learned(houseWalk))
        #expect(model.rooms == ["A", "B"])
        let elsewhere = try #require(model.elsewhere)
        // 80 s of hall at one snapshot every 0.1 s, give or take the rows either side of each gap.
        #expect(abs(elsewhere.samples - 800) <= 40)
        #expect(model.samples.reduce(0, +) + elsewhere.samples <= 3200)
        #expect(elsewhere.neighbours == [0, 1])
        // The classifier has one class more than the rooms.
        #expect(model.classifier?.biases.count == 3)
        let a = try #require(model.nodeIndex("a"))
        // Both nodes hear the hall alike: relative to their mean, 0 dB.
        #expect(abs(elsewhere.looks[a].mean) < 1)
    }

    @Test func truthWithoutGapsLearnsNoElsewhere() throws {
        let model = try #require(learned(run("A", 60) + run("B", 60)))
        #expect(model.elsewhere == nil)
        #expect(model.classifier?.biases.count == 2)
        #expect(!model.json.contains("elsewhere\""))
    }

    @Test func whileElsewhereLeadsTheDecidedRoomStays() throws {
        let model = try #require(learned(houseWalk))
        // Into the hall and back to A: nothing new is published.
        #expect(decisions(model, run("A", 20) + run("hall", 30) + run("A", 20)) == ["A"])
        // Through the hall to B: one move, to B.
        #expect(decisions(model, run("A", 20) + run("hall", 30) + run("B", 20)) == ["A", "B"])
    }

    @Test func aModelOfLevelsHasElsewhereToo() throws {
        let model = try #require(learned(houseWalk, levels: true))
        #expect(model.levels)
        let elsewhere = try #require(model.elsewhere)
        let a = try #require(model.nodeIndex("a"))
        #expect(abs(elsewhere.looks[a].mean + 70) < 1)
        #expect(decisions(model, run("A", 20) + run("hall", 30) + run("A", 20)) == ["A"])
        #expect(try SiteModel(json: Array(model.json.utf8)).json == model.json)
    }

    @Test func theFileKeepsElsewhereAndChecksIt() throws {
        let model = try #require(learned(houseWalk))
        let text = model.json
        #expect(text.contains("\"elsewhere\": {\"samples\": \(model.elsewhere!.samples), \"neighbours\": [\"A\", \"B\"]"))
        let read = try SiteModel(json: Array(text.utf8))
        #expect(read.elsewhere?.samples == model.elsewhere?.samples)
        #expect(read.classifier?.biases.count == 3)
        #expect(read.json == text)
        // The classifier's class without the state, or the state without its class, is named.
        let start = try #require(text.firstRange(of: ",\n    \"elsewhere\": {\"bias\""))
        let end = try #require(text[start.upperBound...].firstRange(of: "]}"))
        let withoutClass = String(text[..<start.lowerBound] + text[end.upperBound...])
        func error(_ text: String) -> String {
            let read = Result { () throws(SiteModelFileError) in try SiteModel(json: Array(text.utf8)) }
            guard case .failure(let failure) = read else { return "accepted" }
            return failure.description
        }
        #expect(error(withoutClass).hasPrefix("classifier.elsewhere: required"))
        let state = try #require(text.firstRange(of: ",\n  \"elsewhere\": {\"samples\""))
        let stateEnd = try #require(text[state.upperBound...].firstRange(of: "\n  }}"))
        let withoutState = String(text[..<state.lowerBound] + text[stateEnd.upperBound...])
        #expect(error(withoutState).hasPrefix("classifier.elsewhere: the model has no"))
    }

    @Test func aGapNoLongerThanElsewhereGapIsTheRoomBefore() throws {
        let model = try #require(learned(houseWalk, SiteModelParameters(elsewhereGap: 30)))
        #expect(model.elsewhere == nil)
        #expect(model.parameters.elsewhereGap == 30)
    }
}
