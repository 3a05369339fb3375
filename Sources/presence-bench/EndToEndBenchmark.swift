import BeaconCore
import RoomDecisions
import Foundation
import Logging
import MQTTClient
import PresenceAggregator

/// Measurement published → broker → `AggregatorService` → location published → broker →
/// subscriber, on loopback with a real mosquitto, one measurement in flight at a time.
///
/// The beacon is first decided (its first location); then every measurement alternates its
/// distance between 1 m and 2 m at the same node, which changes the decided location's distance,
/// so the aggregator publishes the location at once — no dwell is involved (dwell and settle are
/// 0 as well). The agent's own work before the publish is `pipelineNsPerAdvert`.
enum EndToEndBenchmark {
    struct Result {
        var p50Ms: Double
        var p99Ms: Double
        var maxMs: Double
        var samples: Int
        var timeouts: Int
    }

    static func run(samples: Int) async throws -> Result {
        let broker = try BenchBroker()
        defer { broker.stop() }
        var logger = Logger(label: "presence-bench")
        logger.logLevel = .error
        var decision = RoomDecisionParameters.default
        decision.rule.dwell = 0
        decision.settleTime = 0
        let configuration = AggregatorConfiguration(
            broker: MQTTBrokerURL(host: "127.0.0.1", port: broker.port), clientID: "bench-aggregator",
            decision: decision, homeAssistantDiscovery: false)
        let service = AggregatorService(configuration: configuration, logger: logger, softwareVersion: "bench")
        let aggregator = Task { try await service.run() }
        defer { aggregator.cancel() }

        let received = Locked<[UInt64]>([])
        let subscriber = try MQTTConnection(options: MQTTConnectionOptions(host: "127.0.0.1", port: broker.port, clientID: "bench-sub"), logger: logger)
        try await subscriber.connect(timeout: .seconds(10))
        let locations = try await subscriber.subscribe(configuration.topics.location("+"), qos: .atMostOnce)
        let listener = Task {
            for await _ in locations {
                let now = BenchProcess.nanoseconds()
                received.withLock { $0.append(now) }
            }
        }
        defer { listener.cancel() }
        let agent = try MQTTConnection(options: MQTTConnectionOptions(host: "127.0.0.1", port: broker.port, clientID: "bench-node"), logger: logger)
        try await agent.connect(timeout: .seconds(10))

        let beacon = BeaconID(rawValue: "ibeacon-\(SyntheticBeacons.uuidText)-1-1")
        let node = "bench-node"
        func publish(_ k: Int) throws {
            let distance = k % 2 == 0 ? 1.0 : 2.0
            let payload = MeasurementPayload(
                id: beacon.rawValue, beacon: beacon, node: node, room: "lab", rssi: k % 2 == 0 ? -59 : -66,
                rssiFiltered: k % 2 == 0 ? -59 : -66.5, sigma: 1.5, measuredPower: -59, distance: distance,
                proximity: .near, address: BluetoothAddress(rawValue: 0xC0_00_00_00_00_01), format: "ibeacon",
                timestamp: Instant(seconds: Date().timeIntervalSince1970))
            try agent.publish(topic: "\(configuration.topics.root)/beacons/\(beacon.rawValue)/\(node)", string: payload.json)
        }
        func count() -> Int { received.withLock { $0.count } }
        func waitFor(_ target: Int, seconds: Double) async -> Bool {
            let deadline = BenchProcess.nanoseconds() + UInt64(seconds * 1e9)
            while count() < target {
                if BenchProcess.nanoseconds() > deadline { return false }
                try? await Task.sleep(for: .microseconds(100))
            }
            return true
        }

        // Until the aggregator is subscribed and has decided: the first location.
        var k = 0
        while count() == 0 {
            try publish(k)
            k += 1
            _ = await waitFor(1, seconds: 0.2)
            if k > 100 { throw BenchProcess.Failure("the aggregator never published a location") }
        }
        try await Task.sleep(for: .milliseconds(300))

        var latencies: [Double] = []
        var timeouts = 0
        for _ in 0..<samples {
            let before = count()
            let sent = BenchProcess.nanoseconds()
            try publish(k)
            k += 1
            guard await waitFor(before + 1, seconds: 1) else {
                timeouts += 1
                continue
            }
            let arrival = received.withLock { $0[before] }
            latencies.append(Double(arrival - sent) / 1e6)
            // A second publication for the same measurement would skew the next sample.
            try await Task.sleep(for: .milliseconds(1))
            if count() > before + 1 { received.withLock { $0.removeLast($0.count - before - 1) } }
        }
        await agent.disconnect(flushTimeout: .seconds(1))
        await subscriber.disconnect(flushTimeout: .seconds(1))
        latencies.sort()
        func at(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(p * Double(latencies.count)))] }
        return Result(p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies.last ?? .nan, samples: latencies.count, timeouts: timeouts)
    }
}
