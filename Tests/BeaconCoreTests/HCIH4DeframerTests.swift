import Testing
@testable import BeaconCore

@Suite struct HCIH4DeframerTests {
    /// Bytes that are not H4 indicators, used as line noise between packets.
    static let noise: [UInt8] = [0x00] + Array(0x06...0xFF)

    @Test func realCaptureSurvivesRandomChunkingAndNoiseBetweenPackets() throws {
        let records = try BtsnoopParser.records(in: try BtsnoopCaptureTests.horizonBytes())
        #expect(records.count == 2_572)
        for seed in [1, 2, 3, 42] as [UInt64] {
            var random = HCITestRandom(seed: seed)
            var stream: [UInt8] = []
            var noiseCount = 0
            for record in records {
                let garbage = Int.random(in: 0...3, using: &random)
                for _ in 0..<garbage { stream.append(Self.noise.randomElement(using: &random)!) }
                noiseCount += garbage
                stream += record.hciPacket.h4Bytes
            }
            var deframer = H4Deframer()
            var packets: [HCIPacket] = []
            var position = 0
            while position < stream.count {
                let size = Int.random(in: 1...300, using: &random)
                let end = min(stream.count, position + size)
                deframer.feed(stream[position..<end]) { packets.append($0) }
                position = end
            }
            #expect(packets.count == records.count, "seed \(seed)")
            #expect(packets == records.map(\.hciPacket), "seed \(seed)")
            #expect(deframer.skippedByteCount == noiseCount, "seed \(seed)")
            #expect(deframer.bufferedByteCount == 0)
        }
    }

    @Test func everyPacketTypeIsFramedByItsOwnHeader() {
        let command: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
        let acl: [UInt8] = [0x02, 0x40, 0x20, 0x03, 0x00, 0xAA, 0xBB, 0xCC]
        let sco: [UInt8] = [0x03, 0x01, 0x00, 0x02, 0x11, 0x22]
        let event: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        // ISO: the top two bits of the length field are reserved; the length is the low 14 bits.
        let iso: [UInt8] = [0x05, 0x60, 0x00, 0x02, 0xC0, 0x01, 0x02]
        var deframer = H4Deframer()
        var packets: [HCIPacket] = []
        // One byte at a time: every packet arrives split.
        for byte in command + acl + sco + event + iso {
            deframer.feed([byte]) { packets.append($0) }
        }
        #expect(packets.map(\.type) == [.command, .acl, .sco, .event, .iso])
        #expect(packets.map { Array($0.bytes) } == [command, acl, sco, event, iso].map { Array($0.dropFirst()) })
        #expect(deframer.skippedByteCount == 0)
    }

    @Test func anImplausibleLengthIsSkippedSoTheStreamResynchronises() {
        var deframer = H4Deframer(maximumPayloadLength: 300)
        // 0x02 with a declared ACL length of 0x1000 cannot be a packet under this limit.
        let bogus: [UInt8] = [0x02, 0x40, 0x00, 0x00, 0x10]
        let event: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        var packets: [HCIPacket] = []
        deframer.feed(bogus + event) { packets.append($0) }
        #expect(packets == [HCIPacket(type: .event, bytes: event.dropFirst())])
        // The 0x02 is dropped; 0x40 and the next two 0x00 bytes are not indicators; 0x10 neither.
        #expect(deframer.skippedByteCount == 5)
    }

    @Test func bufferingIsBoundedByOnePacket() {
        var deframer = H4Deframer(maximumPayloadLength: 1_000)
        #expect(deframer.capacity == 1_005)
        let big = [UInt8](repeating: 0x04, count: 100_000)  // each 04 04 04 … is an event: code 4, length 4, 7 bytes with its indicator
        #expect(deframer.append(contentsOf: big) == 1_005)
        #expect(deframer.append(contentsOf: big) == 0)
        var count = 0
        while deframer.nextPacket() != nil { count += 1 }
        #expect(count == 1_005 / 7)
        #expect(deframer.bufferedByteCount == 1_005 % 7)
        // Feeding a long stream through `feed` keeps the bound and loses nothing.
        var fresh = H4Deframer(maximumPayloadLength: 1_000)
        var fed = 0
        fresh.feed(big) { _ in fed += 1 }
        #expect(fed == 100_000 / 7)
        #expect(fresh.bufferedByteCount == 100_000 % 7)
    }
}
