import BeaconCore
import IdentityCrypto
import PresenceAgent

/// Issue 19's cost of phones and watches known by their key, in process and in one thread, with
/// time injected, through the agent's whole per-advert path (`AdvertisementDecoder` →
/// `AgentCore.observe` → its actions, as `PipelineBenchmark.Replay` plays them):
/// - an advert from an address already resolved (the phone, tracked: filter and publish policy);
/// - an advert from an address already missed (a stranger's phone: nothing tracked);
/// - an advert from a new resolvable private address, with 1, 10 and 100 keys: the first look,
///   one AES block per key (every new address misses, so every key is tried — the worst case).
enum IRKBenchmark {
    struct Result {
        var nsPerResolvedAdvert: Double
        var nsPerMissedAdvert: Double
        /// Keys → ns per new address.
        var nsPerNewAddress: [Int: Double]
    }

    static let start = 1_900_000_000.0

    static func run(adverts: Int, newAddresses: Int) throws -> Result {
        let crypto = LibCrypto()
        var generator = SplitMix64(seed: 19)
        let keys = (0..<100).map { _ in IdentityResolvingKey(specOrder: (0..<16).map { _ in UInt8(truncatingIfNeeded: generator.next()) })! }

        func replay(keys count: Int) throws -> PipelineBenchmark.Replay {
            var replay = PipelineBenchmark.Replay(
                settings: AgentCore.Settings(node: TopicLevelID("bench")!, room: TopicLevelID("lab")!), at: Instant(seconds: start))
            let entries = keys.prefix(count).enumerated().map { #"{"irk":"\#($0.element.specOrderHex)","id":"phone-\#($0.offset)"}"# }
            let message = #"{"revision":1,"beacons":["# + entries.joined(separator: ",") + "]}"
            replay.consume(replay.core.receiveConfiguration(
                topic: TopicScheme.default.configBeacons, payload: Array(message.utf8), at: Instant(seconds: start)))
            guard replay.core.configRevisionJSON.contains("\"beacons\":1") else {
                throw BenchProcess.Failure("irk: the beacons config was not applied")
            }
            return replay
        }

        /// Times `count` adverts from `address(i)`, one every 10 ms of the injected clock.
        func time(_ replay: inout PipelineBenchmark.Replay, count: Int, _ address: (Int) -> BluetoothAddress) -> Double {
            let events = (0..<count).map { event(address($0)) }
            var decoder = AdvertisementDecoder()
            let begin = BenchProcess.threadCPUNanoseconds()
            for index in 0..<count {
                decoder.decode(eventPacket: events[index][...], at: Instant(seconds: start + 1 + Double(index) / 100)) { advertisement in
                    replay.tick(to: advertisement.time)
                    replay.consume(replay.core.observe(advertisement))
                }
            }
            let elapsed = Double(BenchProcess.threadCPUNanoseconds() - begin)
            blackHole(replay.checksum)
            return elapsed / Double(count)
        }

        // Already resolved and already missed, with 100 keys.
        var steady = try replay(keys: 100)
        let phone = IdentityResolvingKey.resolvablePrivateAddress(prand: 0x12_3456, ah: crypto.addressHash(for: keys[99]))
        let stranger = BluetoothAddress(rawValue: 0x4A_BC_DE_00_11_22)
        _ = time(&steady, count: 1) { _ in phone }
        _ = time(&steady, count: 1) { _ in stranger }
        guard steady.core.trackedBeaconCount == 1 else { throw BenchProcess.Failure("irk: the phone was not resolved") }
        let resolved = time(&steady, count: adverts) { _ in phone }
        let missed = time(&steady, count: adverts) { _ in stranger }

        var perNew: [Int: Double] = [:]
        for count in [1, 10, 100] {
            var fresh = try replay(keys: count)
            perNew[count] = time(&fresh, count: newAddresses) { _ in
                BluetoothAddress(rawValue: 0x4000_0000_0000 | generator.next() & 0x3FFF_FFFF_FFFF)
            }
        }
        return Result(nsPerResolvedAdvert: resolved, nsPerMissedAdvert: missed, nsPerNewAddress: perNew)
    }

    /// An LE Advertising Report from a random address carrying what a phone sends: flags and
    /// Apple's Nearby Info (no beacon).
    static func event(_ address: BluetoothAddress) -> [UInt8] {
        let data: [UInt8] = [0x02, 0x01, 0x1A, 0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05, 0x01, 0x18, 0x44, 0x7A, 0x21]
        var report: [UInt8] = [0x02, 0x01, 0x00, 0x01] + address.bytes.reversed() + [UInt8(data.count)] + data
        report.append(UInt8(bitPattern: -70))
        return [0x3E, UInt8(report.count)] + report
    }
}
