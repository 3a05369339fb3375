import BeaconCore
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
    static func aggregator(beacons: Int, nodes: Int, rooms: Int, updates: Int, seconds: Double)
        -> (corePerSecond: Double, deciderPerSecond: Double, publications: Int, coreUpdates: Int)
    {
        let distinct = beacons * nodes
        var measurements: [ReceivedMeasurement] = []
        measurements.reserveCapacity(distinct)
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
        // A measurement every 10 µs of simulated time: each beacon heard by each node about once a second.
        let step = 1.0 / Double(distinct)
        var core = AggregatorCore(configuration: AggregatorConfiguration(), softwareVersion: "bench")
        var published = 0
        var nextTick = 1.0
        let budget = UInt64(seconds * 1e9)
        let start = BenchProcess.threadCPUNanoseconds()
        var coreUpdates = 0
        while coreUpdates < updates {
            // The clock is read every 1,000 updates only.
            for k in coreUpdates..<min(updates, coreUpdates + 1_000) {
                let time = Instant(seconds: Double(k) * step)
                published &+= core.receive(measurements[k % distinct], at: time).count
                if time.seconds >= nextTick {
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
    /// (`TrackingCalibration.stillPublishesPerMinute` with the default parameters) over the static
    /// series, at the quantile its budget is set on (the median).
    static func messagesAtRest(dataDirectory: String) throws -> Double {
        let inputs = try CalibrateCommand.loadInputs(dataDirectory: dataDirectory)
        let rates = inputs.staticSeries.map { TrackingCalibration.stillPublishesPerMinute($0.series, parameters: .default) }
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

/// Keeps a result alive so the optimiser cannot drop the loop that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
