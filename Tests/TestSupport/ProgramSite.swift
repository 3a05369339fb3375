import Foundation

/// The opening of every test that runs the built programs as an operator would: a private mosquitto
/// on a free loopback port, a scratch directory for the programs' files, and the paths of the built
/// `presence-agent` and `presence-aggregator`. `stop()` kills the broker and removes the directory.
public struct ProgramSite: Sendable {
    public let broker: TestBroker
    /// A temporary directory of the test's own (configuration files, recordings).
    public let work: String
    public let agent: String
    public let aggregator: String
    /// The broker as the programs' `broker:` key takes it.
    public var url: String { "mqtt://\(broker.host):\(broker.port)" }

    public static func start() async throws -> ProgramSite {
        let agent = try BuildProducts.executable(named: "presence-agent")
        let aggregator = try BuildProducts.executable(named: "presence-aggregator")
        let broker = try await TestBroker.start()
        do {
            return ProgramSite(broker: broker, work: try TestBroker.makeTemporaryDirectory(), agent: agent, aggregator: aggregator)
        } catch {
            broker.stop()
            throw error
        }
    }

    public func stop() {
        broker.stop()
        try? FileManager.default.removeItem(atPath: work)
    }
}
