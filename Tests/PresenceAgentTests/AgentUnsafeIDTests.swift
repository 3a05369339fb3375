import Testing
@testable import PresenceAgent

/// `--node` and `--room` (and `node:`/`room:` in the file, `PRESENCE_NODE`/`PRESENCE_ROOM`) become
/// topic levels: `/`, `+`, `#`, NUL and 65-character ids stop the agent at start, naming the field.
@Suite struct AgentUnsafeIDTests {
    static let unsafe = ["a/b", "a+b", "a#b", "#", "+", "a\u{0}b", String(repeating: "x", count: 65), ""]

    func error(node: String = "kitchen-1", room: String = "kitchen") -> String {
        var configuration = AgentConfiguration()
        configuration.node = node  // what --node does
        configuration.room = room
        do {
            _ = try configuration.resolve()
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test(arguments: unsafe) func nodeFlag(bad: String) {
        let message = error(node: bad)
        #expect(message.hasPrefix("node: "), "\(message)")
        #expect(message.hasSuffix("must be 1–64 characters of a-z, 0-9, '_' and '-'"))
        #expect(!message.utf8.contains(0))
    }

    @Test(arguments: unsafe) func roomFlag(bad: String) {
        let message = error(room: bad)
        #expect(message.hasPrefix("room: "), "\(message)")
    }

    @Test func sixtyFourCharactersAreEnough() {
        #expect(error(node: String(repeating: "n", count: 64), room: String(repeating: "r", count: 64)) == "accepted")
    }
}
