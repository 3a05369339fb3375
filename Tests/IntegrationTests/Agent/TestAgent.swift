import BluetoothHCI
import Foundation
import Logging
import PresenceAgent
import ServiceLifecycle
import Testing
import TestSupport

/// One agent as the tests run it in process: `node` serving `room` on `broker`, its state in
/// `stateDir`, hearing `source` on `clock`; `configure` sets anything else.
func testAgent(
    _ node: String, _ room: String, broker: TestBroker, stateDir: String, source: String, clock: ManualClock,
    logger: Logger = quietLogger, _ configure: (inout AgentConfiguration) -> Void = { _ in }
) throws -> AgentService {
    var configuration = AgentConfiguration()
    configuration.node = node
    configuration.room = room
    configuration.broker = "mqtt://127.0.0.1:\(broker.port)"
    configuration.stateDir = stateDir
    configuration.source = source
    configure(&configuration)
    return AgentService(configuration: try configuration.resolve(), logger: logger, version: "test", clock: clock)
}
