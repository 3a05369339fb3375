import BeaconCore
@testable import RoomDecisions
import Testing

/// Each room served by the decision better at it (issue 36): the file keeps which, and the one
/// decision takes the model's room where the model serves it and physics' room elsewhere, steadily.
@Suite struct SiteModelRoomServiceTests {
    /// Rooms: bathroom (no receiver: the model's), hall and living (physics').
    private func model() -> SiteModel {
        let look = SiteModel.Look(heard: 0.9, mean: 0, sigma: 3)
        return SiteModel(rooms: ["bathroom", "hall", "living"], nodes: ["n1"], looks: [[look], [look], [look]],
                         samples: [10, 10, 10], parameters: .default, roomDecisions: [.model, .physics, .physics])
    }

    @Test func theFileSaysWhichDecisionServesEachRoom() throws {
        let text = model().json
        #expect(text.contains(#"{"name": "hall", "decidedBy": "physics", "samples""#))
        #expect(text.contains(#"{"name": "bathroom", "samples""#))
        #expect(text.contains(#""handOverDwell": 4"#) && text.contains(#""handOverPosterior": 0.9"#))
        let read = try SiteModel(json: Array(text.utf8))
        #expect(read.roomDecisions == [.model, .physics, .physics])
        let wrong = text.replacingOccurrences(of: #""decidedBy": "physics""#, with: #""decidedBy": "both""#)
        #expect(throws: SiteModelFileError.self) { try SiteModel(json: Array(wrong.utf8)) }
    }

    @Test func theModelsRoomWhereItServesPhysicsRoomElsewhere() {
        let model = model()
        // The model names a physics room: physics' room decides.
        #expect(SiteModelDecider.combined(modelRoom: 1, physicsRoom: "living", held: "living", settled: true, model: model) == "living")
        // The model names the bathroom: taken once settled while physics held the hall ...
        #expect(SiteModelDecider.combined(modelRoom: 0, physicsRoom: "hall", held: "hall", settled: true, model: model) == "bathroom")
        // ... not before (a brief guess does not break physics' steady room) ...
        #expect(SiteModelDecider.combined(modelRoom: 0, physicsRoom: "hall", held: "hall", settled: false, model: model) == "hall")
        // ... and kept once decided, settled or not.
        #expect(SiteModelDecider.combined(modelRoom: 0, physicsRoom: "hall", held: "bathroom", settled: false, model: model) == "bathroom")
        // Leaving it: the model names the hall, physics' room decides at once.
        #expect(SiteModelDecider.combined(modelRoom: 1, physicsRoom: "hall", held: "bathroom", settled: false, model: model) == "hall")
        // Every room the model's (a file from before): the model's room, as before.
        var old = model
        old.roomDecisions = [.model, .model, .model]
        #expect(SiteModelDecider.combined(modelRoom: 1, physicsRoom: "living", held: "living", settled: false, model: old) == "hall")
    }
}
