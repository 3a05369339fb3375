import RoomDecisions
import Testing

/// A room walked little is pulled towards its walked neighbours (`roomShrinkSeconds`, issue 36).
@Suite struct SiteModelShrinkTests {
    @Test func aRoomWalkedLittleTakesMostOfItsNeighboursWeights() {
        var classifier = SiteModelClassifier(means: [0, 0], scales: [1, 1],
                                             weights: [[4, 0], [0, 2], [0, 6]], biases: [1, 2, 3])
        // Room 0 walked 10 s next to rooms 1 and 2, which were walked 990 s each; strength 30 s.
        classifier.shrink(seconds: [10, 990, 990], towards: [[1, 2], [0], [0]], strength: 30)
        // Room 0 keeps 10/40 of its own: 0.25·[4, 0] + 0.75·[0, 4].
        #expect(classifier.weights[0] == [1, 3])
        // A room walked long hardly moves, and moves towards the fitted weights, not the shrunk ones.
        #expect(abs(classifier.weights[1][0] - 30.0 / 1020 * 4) < 1e-12)
        #expect(classifier.biases == [1, 2, 3])
    }

    @Test func offByDefaultAndSetByItsFileKey() throws {
        #expect(SiteModelParameters.default.roomShrinkSeconds == 0)
        var parameters = SiteModelParameters.default
        let accepted = parameters.set("roomShrinkSeconds", to: 30)
        #expect(accepted && parameters.roomShrinkSeconds == 30)
        let negative = parameters.set("roomShrinkSeconds", to: -1)
        #expect(!negative && parameters.roomShrinkSeconds == 30)
    }
}
