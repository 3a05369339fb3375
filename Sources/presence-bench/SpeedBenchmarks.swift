import BeaconCore
import Evaluation
import RoomDecisions
import Foundation
import PresenceAggregator

/// The in-process speed figures: each loads its input first and times only the work, in CPU time
/// of the thread (`BenchProcess.threadCPUNanoseconds`).
enum SpeedBenchmarks {
    /// ns per advertising report: every event packet of the capture, loaded into memory, through
    /// `AdvertisementDecoder` (HCI event → report → beacon) `passes` times.
    static func decode(capturePath: String, passes: Int) throws -> (nsPerReport: Double, reports: Int, packets: Int) {
        // Every event packet in one buffer, each decoded as a slice of it borrowed for the call, as
        // the agent decodes the record it has just read. An array of packets would cost a retain
        // and a release of each packet as it is loaded for the call (a third of the figure), which
        // the agent pays once per record in its reader (the pipeline figure), not in decoding.
        var buffer: [UInt8] = []
        var packets: [Range<Int>] = []
        try BtsnoopFileReader.forEachRecord(inFile: capturePath) { record in
            guard record.packetType == .event else { return }
            packets.append(buffer.count..<(buffer.count + record.packet.count))
            buffer.append(contentsOf: record.packet)
        }
        guard !packets.isEmpty else { throw BenchProcess.Failure("\(capturePath): no HCI events") }
        let capture = buffer
        var decoder = AdvertisementDecoder()
        var reports = 0, checksum = 0
        let time = Instant(seconds: 0)
        // One untimed pass warms caches and counts.
        for packet in packets { decoder.decode(eventPacket: capture[packet], at: time) { _ in reports += 1 } }
        guard reports > 0 else { throw BenchProcess.Failure("\(capturePath): no advertising reports") }
        let start = BenchProcess.threadCPUNanoseconds()
        for _ in 0..<passes {
            for packet in packets {
                decoder.decode(eventPacket: capture[packet], at: time) { advertisement in
                    checksum &+= Int(advertisement.report.rssi ?? 0) &+ (advertisement.beacon == nil ? 0 : 1)
                }
            }
        }
        let elapsed = Double(BenchProcess.threadCPUNanoseconds() - start)
        blackHole(checksum)
        return (elapsed / Double(reports * passes), reports, packets.count)
    }

    /// `AggregatorCore.receive` per second: `beacons` beacons heard by `nodes` nodes in `rooms`
    /// rooms, each beacon strongest at a node of its own room, RSSI with noise, the aggregator's
    /// one-second tick included; and `RoomDecider.update` alone on the same evidence.
    /// Each loop stops after `updates` updates or `seconds` seconds, whichever comes first.
    /// With `siteModel`, the aggregator decides with a site model of the same nodes and rooms
    /// (`aggregatorSiteModel`), as `run --model` does. With `motion`, every room has a motion sensor
    /// (`motion:`), and at each tick each room's motion starts or clears in turn (`aggregatorMotion`):
    /// every decision then weighs motion.
    static func aggregator(beacons: Int, nodes: Int, rooms: Int, updates: Int, seconds: Double, siteModel: Bool = false,
                           motion: Bool = false)
        -> (corePerSecond: Double, deciderPerSecond: Double, publications: Int, coreUpdates: Int)
    {
        let measurements = aggregatorMeasurements(beacons: beacons, nodes: nodes, rooms: rooms)
        let distinct = measurements.count
        // A measurement every 10 µs of simulated time: each beacon heard by each node about once a second.
        let step = 1.0 / Double(distinct)
        var configuration = AggregatorConfiguration()
        if siteModel { configuration.siteModel = aggregatorSiteModel(nodes: nodes, rooms: rooms) }
        if motion {
            configuration.motion = (0..<rooms).map { MotionSensorSettings(topic: "zigbee2mqtt/room-\($0)-pir", room: "room-\($0)") }
        }
        var core = AggregatorCore(configuration: configuration, softwareVersion: "bench")
        if motion { aggregatorMotion(&core, rooms: rooms, second: 0) }
        var published = 0
        var nextTick = 1.0
        let budget = seconds.isFinite ? UInt64(seconds * 1e9) : UInt64.max
        let start = BenchProcess.threadCPUNanoseconds()
        var coreUpdates = 0
        while coreUpdates < updates {
            // The clock is read every 1,000 updates only.
            for k in coreUpdates..<min(updates, coreUpdates + 1_000) {
                let time = Instant(seconds: Double(k) * step)
                published &+= core.receive(measurements[k % distinct], at: time).count
                if time.seconds >= nextTick {
                    if motion { aggregatorMotion(&core, rooms: rooms, second: Int(nextTick)) }
                    published &+= core.tick(at: time).count
                    nextTick += 1
                }
            }
            coreUpdates = min(updates, coreUpdates + 1_000)
            if BenchProcess.threadCPUNanoseconds() - start > budget { break }
        }
        let coreSeconds = Double(BenchProcess.threadCPUNanoseconds() - start) / 1e9

        let evidence = measurements.map(\.evidence)
        var decider = RoomDecider(parameters: .default)
        var decisions = 0
        let deciderStart = BenchProcess.threadCPUNanoseconds()
        for k in 0..<updates where decider.update(evidence[k % distinct], at: Instant(seconds: Double(k) * step)) != nil {
            decisions += 1
        }
        let deciderSeconds = Double(BenchProcess.threadCPUNanoseconds() - deciderStart) / 1e9
        blackHole(decisions)
        return (Double(coreUpdates) / coreSeconds, Double(updates) / deciderSeconds, published, coreUpdates)
    }

    /// The motion of the aggregator figure's rooms at `second`: each room in motion for three seconds
    /// of every four, rooms a second apart, so that at every tick one room's motion starts and
    /// another's clears (onsets, holds and quiet rooms all in play).
    static func aggregatorMotion(_ core: inout AggregatorCore, rooms: Int, second: Int) {
        for room in 0..<rooms {
            let phase = (second + room) % 4
            guard second == 0 || phase <= 1 else { continue }
            core.motion(room: "room-\(room)", occupied: phase != 0, at: Instant(seconds: Double(second)))
        }
    }

    /// A site model of the aggregator figure's site: every node hears every room, and the classifier
    /// weighs each room's physics score (what it costs does not depend on what it learned).
    static func aggregatorSiteModel(nodes: Int, rooms: Int) -> SiteModel {
        let roomNames = (0..<rooms).map { "room-\($0)" }
        let nodeNames = (0..<nodes).map { "node-\($0)" }.sorted()
        let width = SiteModelClassifier.featureCount(rooms: rooms, nodes: nodes)
        let weights = (0..<rooms).map { room in (0..<width).map { $0 == room ? 1.0 : 0 } }
        return SiteModel(
            rooms: roomNames, nodes: nodeNames,
            looks: Array(repeating: Array(repeating: .init(heard: 1, mean: 0, sigma: 3), count: nodes), count: rooms),
            samples: Array(repeating: 100, count: rooms), parameters: .default,
            nodeRooms: nodeNames.map { "room-\(Int($0.dropFirst(5))! % rooms)" },
            classifier: SiteModelClassifier(means: Array(repeating: 0, count: width), scales: Array(repeating: 1, count: width),
                                            weights: weights, biases: Array(repeating: 0, count: rooms)))
    }

    /// The aggregator figure's input: one second of measurements, `beacons` × `nodes`, replayed
    /// round after round.
    static func aggregatorMeasurements(beacons: Int, nodes: Int, rooms: Int) -> [ReceivedMeasurement] {
        var measurements: [ReceivedMeasurement] = []
        measurements.reserveCapacity(beacons * nodes)
        let ids = (0..<beacons).map { BeaconID(rawValue: "ibeacon-\(SyntheticBeacons.uuidText)-\($0 % 1000)-\($0 / 1000)") }
        let nodeNames = (0..<nodes).map { "node-\($0)" }
        let roomNames = (0..<nodes).map { "room-\($0 % rooms)" }
        for round in 0..<nodes {
            for beacon in 0..<beacons {
                let node = (beacon + round) % nodes
                let home = beacon % nodes
                let rssi = (node == home ? -62.0 : -78.0) + Double(SyntheticBeacons.noise(beacon: beacon, round: round))
                let distance = pow(10, (-59 - rssi) / 25)
                let proximity: Proximity = distance < 0.5 ? .immediate : distance < 3 ? .near : .far
                measurements.append(ReceivedMeasurement(
                    beacon: ids[beacon], node: nodeNames[node], room: roomNames[node], rssiFiltered: rssi, sigma: 2,
                    distance: distance, proximity: proximity))
            }
        }
        return measurements
    }

    /// What the aggregator figure's loop publishes, untimed: every publication (topic, payload,
    /// retain, QoS) of `updates` updates hashed in order, so that a change meant to be faster can be
    /// checked to publish the same bytes (compare `aggregatorPublicationsFingerprint` before/after).
    static func aggregatorFingerprint(beacons: Int, nodes: Int, rooms: Int, updates: Int)
        -> (publications: Int, fingerprint: String)
    {
        let measurements = aggregatorMeasurements(beacons: beacons, nodes: nodes, rooms: rooms)
        let step = 1.0 / Double(measurements.count)
        var core = AggregatorCore(configuration: AggregatorConfiguration(), softwareVersion: "bench")
        var fingerprint = PublicationFingerprint()
        var nextTick = 1.0
        for k in 0..<updates {
            let time = Instant(seconds: Double(k) * step)
            fingerprint.add(core.receive(measurements[k % measurements.count], at: time))
            if time.seconds >= nextTick {
                fingerprint.add(core.tick(at: time))
                nextTick += 1
            }
        }
        return (fingerprint.count, fingerprint.hex)
    }

    /// A varied run through the aggregator, untimed, for the same check on the paths the figure's
    /// steady loop rarely takes: beacons moving between rooms (challengers, dwell, switches),
    /// nodes that stop hearing a beacon (`unknown`), a node going offline and back, beacons falling
    /// silent (away, `not_home`, forgotten) and coming back, ticks every second. Deterministic.
    static func aggregatorVariedFingerprint(beacons: Int, nodes: Int, rooms: Int, seconds: Int)
        -> (publications: Int, fingerprint: String)
    {
        let ids = (0..<beacons).map { BeaconID(rawValue: "ibeacon-\(SyntheticBeacons.uuidText)-\($0 % 1000)-\($0 / 1000)") }
        let nodeNames = (0..<nodes).map { "node-\($0)" }
        let roomNames = (0..<nodes).map { "room-\($0 % rooms)" }
        var configuration = AggregatorConfiguration()
        configuration.forgetAfter = 60
        // Some known beacons (aliases, names: never evicted) and a cap on the others that the
        // rest exceeds, so evictions happen too.
        configuration.knownBeacons = stride(from: 0, to: beacons, by: 25).map {
            KnownBeacon(beacon: ids[$0], alias: TopicLevelID("known-\($0)"), name: "Known \($0)")
        }
        configuration.maxUnknownBeacons = beacons - beacons / 25 - 8
        var core = AggregatorCore(configuration: configuration, softwareVersion: "bench")
        var fingerprint = PublicationFingerprint()
        let perSecond = beacons * nodes
        for second in 0..<seconds {
            if second == seconds / 3 { fingerprint.add(core.nodeStatus(node: nodeNames[1], online: false, at: Instant(seconds: Double(second)))) }
            if second == seconds / 2 { fingerprint.add(core.nodeStatus(node: nodeNames[1], online: true, at: Instant(seconds: Double(second)))) }
            for index in 0..<perSecond {
                let beacon = index % beacons
                let round = index / beacons
                let node = (beacon + round) % nodes
                // Each beacon moves to another node's room every 7–19 s; a tenth of the beacons
                // fall silent for 40–100 s now and then.
                let period = 7 + beacon % 13
                let home = (beacon + second / period) % nodes
                let silentFrom = 20 + (beacon * 7) % 150
                let silentFor = beacon % 10 == 0 ? 40 + beacon % 61 : 0
                let time = Instant(seconds: Double(second) + Double(index) / Double(perSecond))
                let noise = Double(SyntheticBeacons.noise(beacon: beacon, round: second * nodes + round))
                let measurement: ReceivedMeasurement
                if second >= silentFrom, second < silentFrom + silentFor {
                    guard second == silentFrom else { continue }
                    measurement = ReceivedMeasurement(beacon: ids[beacon], node: nodeNames[node], room: roomNames[node],
                                                      distance: nil, proximity: .unknown)
                } else if (beacon + node + second) % 17 == 0 {
                    measurement = ReceivedMeasurement(beacon: ids[beacon], node: nodeNames[node], room: roomNames[node],
                                                      distance: nil, proximity: .unknown)
                } else {
                    let rssi = (node == home ? -62.0 : -70.0 - Double((node * 3 + beacon) % 9)) + noise
                    let distance = pow(10, (-59 - rssi) / 25)
                    let proximity: Proximity = distance < 0.5 ? .immediate : distance < 3 ? .near : .far
                    measurement = ReceivedMeasurement(beacon: ids[beacon], node: nodeNames[node], room: roomNames[node],
                                                      rssiFiltered: rssi, sigma: 2, distance: distance, proximity: proximity)
                }
                fingerprint.add(core.receive(measurement, at: time))
            }
            fingerprint.add(core.tick(at: Instant(seconds: Double(second + 1))))
        }
        return (fingerprint.count, fingerprint.hex)
    }

    /// `presence-aggregator replay` (decisions CSV) over every trace: input rows per second, the
    /// files read and parsed inside the timing, output lines counted and dropped.
    static func replay(traceDirectory: String, passes: Int) throws -> (rowsPerSecond: Double, rows: Int, traces: Int) {
        let names = try FileManager.default.contentsOfDirectory(atPath: traceDirectory)
            .filter { $0.hasSuffix(".trace.csv") }.sorted()
        guard !names.isEmpty else { throw BenchProcess.Failure("no *.trace.csv in \(traceDirectory)") }
        var rows = 0, lines = 0
        let start = BenchProcess.threadCPUNanoseconds()
        for _ in 0..<passes {
            for name in names {
                rows += try TraceReplayRunner.run(path: traceDirectory + "/" + name, output: .decisions) { _ in lines += 1 }.samples
            }
        }
        let seconds = Double(BenchProcess.threadCPUNanoseconds() - start) / 1e9
        blackHole(lines)
        return (Double(rows) / seconds, rows / passes, names.count)
    }

    /// Measurements per beacon per minute at rest: the calibration's own measure
    /// (`TrackingCalibration.stillPublishesPerMinute`, with the default parameters unless others are
    /// given) over the static series, at the quantile its budget is set on (the median).
    static func messagesAtRest(dataDirectory: String, tracking: TrackingParameters = .default) throws -> Double {
        let inputs = try CalibrateCommand.loadInputs(dataDirectory: dataDirectory)
        let rates = inputs.staticSeries.map {
            TrackingCalibration.stillPublishesPerMinute($0.series, parameters: tracking)
        }
        return TrackingCalibration.quantile(rates, TrackingCalibration.atRestQuantile)
    }

    /// Measurements per beacon per node per minute on the walking traces: `presence-bench
    /// evaluate`'s `messagesPerBeaconMinuteMoving`, by the same replay.
    static func messagesMoving(traceDirectory: String) throws -> Double {
        var messages = 0, minutes = 0.0
        for set in try EvaluateCommand.loadTraces(directory: traceDirectory) {
            let result = EvaluateCommand.replay(set, tracking: .default, parameters: .default)
            messages += result.messages
            minutes += result.beaconNodeMinutes
        }
        return minutes > 0 ? Double(messages) / minutes : .nan
    }
}

/// FNV-1a-like (64 bits, eight bytes a step) over every publication's topic, payload, retain flag and QoS, in order.
struct PublicationFingerprint {
    private(set) var count = 0
    private var state: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ publications: [AggregatorPublication]) {
        for publication in publications {
            count += 1
            mix(publication.topic)
            mix(publication.payload)
            mixByte(publication.retain ? 1 : 0)
            mixByte(UInt8(truncatingIfNeeded: publication.qos))
        }
    }

    private mutating func mix(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            // Eight bytes a step (room messages reach 400 KB), then the rest one by one.
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                state = (state ^ word) &* 0x100_0000_01B3
                state ^= state >> 29
                offset += 8
            }
            while offset < bytes.count {
                mixByte(bytes[offset])
                offset += 1
            }
        }
        mixByte(0xFF)  // never in UTF-8: ends the field
    }

    private mutating func mixByte(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x100_0000_01B3
    }

    var hex: String {
        let digits = String(state, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Keeps a result alive so the optimiser cannot drop the loop that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
