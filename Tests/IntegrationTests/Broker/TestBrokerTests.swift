import TestSupport
import Foundation
import MQTTClient
import Testing

/// The test broker itself, as other test targets rely on it.
@Suite("Test broker helper")
struct TestBrokerTests {
    @Test("with persistence, retained messages survive terminate() and restart() on the same port")
    func persistence() async throws {
        let broker = try await TestBroker.start(TestBroker.Configuration(persistence: true))
        let port = broker.port
        try broker.mosquittoPub(topic: "test/persist/a", message: "kept", qos: 1, retain: true)

        broker.terminate()
        #expect(!broker.isRunning)
        try await broker.restart()
        #expect(broker.port == port)
        #expect(try broker.mosquittoSub(topic: "test/persist/#", count: 1) == ["kept"])

        // What was saved also survives a SIGKILL (what changed since may not: see kill()).
        broker.kill()
        try await broker.restart()
        #expect(try broker.mosquittoSub(topic: "test/persist/#", count: 1) == ["kept"])
    }

    @Test("the temporary directory goes away with the broker")
    func cleanup() async throws {
        var broker: TestBroker? = try await TestBroker.start()
        let directory = try #require(broker?.directory)
        #expect(FileManager.default.fileExists(atPath: directory + "/mosquitto.conf"))
        broker = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
