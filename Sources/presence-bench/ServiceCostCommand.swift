import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import Logging
import MQTTClient
import PresenceAggregator

/// Issue 38's measure of the aggregator's work per message, in instructions: the live
/// `AggregatorService` runs in this process, fed by a real mosquitto with a fleet's measurements
/// (`FleetLayout`, 10 % of the beacons moving) published from this process's main thread at a
/// paced rate. It runs here and not as `presence-aggregator run` because valgrind 3.19 stops on
/// that program's async main (libdispatch's signal thread); the service path, from the socket to
/// the publications, is the same. Before the measured phase it prints `steady` on stderr and after
/// it `measured`, so a script can switch callgrind's collection on and off
/// (`callgrind_control -i on|off <pid>`); `--separate-threads=yes` tells the publisher's threads
/// from the aggregator's.
struct ServiceCostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Runs the aggregator's service in this process under a paced fleet of measurements (for callgrind); prints what it handled as JSON."
    )

    @Option(help: "Nodes (receivers), two to a room.")
    var nodes = 20

    @Option(help: "Beacons, each heard by three nodes.")
    var beacons = 1_000

    @Option(help: "Measurements a second in the measured phase.")
    var messagesPerSecond = 100.0

    @Option(help: "Seconds of the measured phase.")
    var seconds = 20.0

    @Option(help: "The service's tick interval, seconds.")
    var tickInterval = 0.25

    @Flag(help: "Also count the locations the service publishes (a subscriber in this process: leave it off under callgrind).")
    var countLocations = false

    @Flag(help: "Publish locations by the rule before issue 38's sixth round (every change of 0.1 m), to compare.")
    var everyTenth = false

    func run() throws {
        let layout = FleetLayout(nodes: nodes, nodesPerRoom: 2, beacons: beacons, nodesPerBeacon: 3)
        let broker = try BenchBroker()
        defer { broker.stop() }
        var logger = Logger(label: "presence-bench")
        logger.logLevel = .error
        var configuration = AggregatorConfiguration(
            broker: MQTTBrokerURL(host: "127.0.0.1", port: broker.port), clientID: "bench-aggregator",
            homeAssistantDiscovery: false)
        configuration.tickInterval = tickInterval
        if everyTenth { configuration.locationRefresh = .everyTenth }
        configuration.maxUnknownBeacons = max(configuration.maxUnknownBeacons, beacons)
        let service = AggregatorService(configuration: configuration, logger: logger, softwareVersion: "bench")
        let aggregator = Task { try await service.run() }
        defer { aggregator.cancel() }
        let publisher = try MQTTConnection(
            options: MQTTConnectionOptions(host: "127.0.0.1", port: broker.port, clientID: "bench-fleet"), logger: logger)
        try SpeedCommand.blocking { try await publisher.connect(timeout: .seconds(10)) }
        func progress(_ line: String) { FileHandle.standardError.write(Data("service: \(line)\n".utf8)) }

        func publish(_ index: Int) {
            let pair = index % layout.pairs
            let beacon = pair % layout.beacons
            let slot = pair / layout.beacons
            let round = index / layout.pairs
            let moved = beacon % 10 == 0 && round % 2 == 1
            let payload = layout.payload(
                beacon: beacon, slot: slot, nearestSlot: moved ? layout.moveSlot(beacon: beacon) ?? 0 : 0,
                sequence: 1 + round, time: Instant(seconds: Date().timeIntervalSince1970))
            _ = try? publisher.publish(topic: layout.topic(beacon: beacon, slot: slot), string: payload)
        }
        func waitFor(measurements: Int, seconds: Double) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while service.statistics.measurements < measurements {
                guard Date() < deadline else {
                    throw BenchProcess.Failure("the service took \(service.statistics.measurements) of \(measurements) measurements")
                }
                usleep(10_000)
            }
        }

        // Until the service is subscribed, then every pair once: every beacon placed.
        var index = 0
        while service.statistics.measurements == 0 {
            publish(index)
            usleep(50_000)
            index += 1
        }
        index = 0
        progress("warm-up: \(layout.pairs) measurements")
        let warmUpStart = service.statistics.measurements
        while index < layout.pairs {
            publish(index)
            index += 1
            if index % 200 == 0 { usleep(100_000) }
        }
        try waitFor(measurements: warmUpStart + layout.pairs, seconds: 120)
        sleep(3)

        progress("steady")
        let locations = LocationTally()
        var counter: MQTTConnection?
        if countLocations {
            let connection = try MQTTConnection(
                options: MQTTConnectionOptions(host: "127.0.0.1", port: broker.port, clientID: "bench-locations"), logger: logger)
            try SpeedCommand.blocking {
                try await connection.connect(timeout: .seconds(10))
                // Live publications only: the retained ones the subscription starts with are not this phase's.
                _ = try await connection.subscribe("presence/locations/+") { message in
                    if !message.retain { locations.add() }
                }
            }
            counter = connection
        }
        sleep(2)
        let locationsBefore = locations.count
        let before = service.statistics
        let start = Date()
        var sent = 0
        while Date().timeIntervalSince(start) < seconds {
            let due = Int(Date().timeIntervalSince(start) * messagesPerSecond) + 1
            while sent < due {
                publish(index)
                index += 1
                sent += 1
            }
            usleep(2_000)
        }
        try waitFor(measurements: before.measurements + sent, seconds: 120)
        let elapsed = Date().timeIntervalSince(start)
        progress("measured")
        sleep(2)
        let after = service.statistics
        var out: [String: Any] = [
            "beacons": beacons, "nodes": nodes, "messages": after.measurements - before.measurements,
            "ticks": after.ticks - before.ticks, "seconds": (elapsed * 10).rounded() / 10,
            "messagesPerSecond": messagesPerSecond, "tickInterval": tickInterval,
        ]
        if countLocations { out["locationsPublished"] = locations.count - locationsBefore }
        let json = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
        aggregator.cancel()
        _ = try? SpeedCommand.blocking { await publisher.disconnect(flushTimeout: .seconds(1)) }
        if let counter { _ = try? SpeedCommand.blocking { await counter.disconnect(flushTimeout: .seconds(1)) } }
    }
}

/// Messages counted on a connection's network thread and read from the bench's.
private final class LocationTally: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
