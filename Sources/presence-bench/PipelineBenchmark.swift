import BeaconCore
import PresenceAgent

/// Issue 6's agent pipeline per advertisement, in process and in one thread, with time injected:
/// the HCI event bytes of `SyntheticBeacons` (the workload `AgentProcessBenchmark` replays) →
/// `AdvertisementDecoder` → `AgentCore.observe` (track lookup, region match, Kalman filter,
/// distance and proximity, publish policy, the payload bytes and topic of each publication) plus
/// `AgentCore.tick` once per simulated second (silence, region exits, ranging lists and their
/// heartbeat), as `AgentService`'s loop calls them. Left out: reading the capture, handing batches
/// from the source thread to the loop, and libmosquitto — the process figure has those.
///
/// The agent starts with the regions config pushed as the broker would, and hears every beacon
/// `warmUpRounds` times untimed, so the timed rounds see the steady state: every beacon tracked
/// and ranged, publishes by the policy only, and a ranging heartbeat every 30 s.
enum PipelineBenchmark {
    struct Result {
        var nsPerAdvert: Double
        var adverts: Int
        var publications: Int
        var trackedBeacons: Int
    }

    static let start = 1_800_000_000.0

    static func run(beacons: Int, regions: Int, warmUpRounds: Int, rounds: Int) throws -> Result {
        let synthetic = SyntheticBeacons(beacons: beacons, regions: regions)
        // 32 rounds of events (each its own noise, as the process bench's capture), replayed in turn
        // while the clock runs on; all in one buffer, each event a slice of it as a read record is.
        let distinctRounds = 32
        var bytes: [UInt8] = []
        bytes.reserveCapacity(distinctRounds * beacons * 48)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(distinctRounds * beacons)
        for round in 0..<distinctRounds {
            for beacon in 0..<beacons {
                let event = synthetic.event(beacon: beacon, rssi: SyntheticBeacons.rssi(beacon: beacon, round: round))
                ranges.append(bytes.count..<bytes.count + event.count)
                bytes += event
            }
        }

        var replay = Replay(settings: AgentCore.Settings(node: TopicLevelID("bench")!, room: TopicLevelID("lab")!), at: Instant(seconds: start))
        let configured = replay.core.receiveConfiguration(
            topic: TopicScheme.default.configRegions, payload: Array(synthetic.regionsConfig.utf8), at: Instant(seconds: start))
        replay.consume(configured)
        guard replay.core.regionCount == regions else { throw BenchProcess.Failure("pipeline: the regions config was not applied") }

        for round in 0..<warmUpRounds {
            replay.play(round: round, bytes: bytes, ranges: ranges, beacons: beacons, distinctRounds: distinctRounds)
        }
        guard replay.core.trackedBeaconCount == beacons else {
            throw BenchProcess.Failure("pipeline: \(replay.core.trackedBeaconCount) of \(beacons) beacons tracked after warm-up")
        }
        replay.publications = 0
        let begin = BenchProcess.threadCPUNanoseconds()
        for round in warmUpRounds..<warmUpRounds + rounds {
            replay.play(round: round, bytes: bytes, ranges: ranges, beacons: beacons, distinctRounds: distinctRounds)
        }
        let elapsed = Double(BenchProcess.threadCPUNanoseconds() - begin)
        blackHole(replay.checksum)
        return Result(
            nsPerAdvert: elapsed / Double(rounds * beacons), adverts: rounds * beacons, publications: replay.publications,
            trackedBeacons: replay.core.trackedBeaconCount)
    }

    /// The agent loop's part of `AgentService`, without the threads and the broker.
    struct Replay {
        var decoder = AdvertisementDecoder()
        var core: AgentCore
        var lastTick: Instant?
        var publications = 0
        var checksum = 0

        init(settings: AgentCore.Settings, at start: Instant) {
            core = AgentCore(settings: settings, at: start)
        }

        /// Every beacon advertises once in the round, spread over its second.
        mutating func play(round: Int, bytes: [UInt8], ranges: [Range<Int>], beacons: Int, distinctRounds: Int) {
            let first = (round % distinctRounds) * beacons
            let roundStart = PipelineBenchmark.start + Double(round)
            // Out of `self` while it decodes, so the callback may change the rest of `self`.
            var decoder = self.decoder
            defer { self.decoder = decoder }
            for beacon in 0..<beacons {
                let time = Instant(seconds: roundStart + Double(beacon) / Double(beacons))
                decoder.decode(eventPacket: bytes[ranges[first + beacon]], at: time) { advertisement in
                    tick(to: advertisement.time)
                    consume(core.observe(advertisement))
                }
            }
        }

        /// As the service: a tick at most once per second of the source's clock, before the advert.
        mutating func tick(to time: Instant) {
            if let last = lastTick, time - last < 1 { return }
            lastTick = time
            consume(core.tick(at: time))
        }

        /// What the service hands to libmosquitto (topic and payload bytes), touched, not sent.
        mutating func consume(_ actions: [AgentAction]) {
            for action in actions {
                switch action {
                case .publish(let publication):
                    publications += 1
                    checksum &+= publication.payload.count &+ publication.topic.utf8.count
                case .persist(_, let contents):
                    checksum &+= contents?.count ?? 0
                case .record, .log:
                    break
                }
            }
        }
    }
}
