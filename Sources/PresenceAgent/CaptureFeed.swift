import BeaconCore

/// A btsnoop capture replayed at its recorded pace, `speed` times faster, or (speed 0) as fast as
/// the CPU allows. Times are the capture's own, at every speed.
final class CaptureFeed: AdvertisementFeed {
    private let reader: BtsnoopFileReader
    private let path: String
    private let speed: Double
    private let wallClock: @Sendable () -> Double
    private var decoder = AdvertisementDecoder()
    /// The first record's capture time and the wall time it was replayed at.
    private var anchor: (capture: Double, wall: Double)?
    private var held: BtsnoopRecord?
    private var ended = false
    private(set) var now = Instant(seconds: 0)

    init(path: String, speed: Double, wallClock: @escaping @Sendable () -> Double) throws(FeedError) {
        do {
            reader = try BtsnoopFileReader(path: path)
        } catch {
            throw FeedError("\(path): \(error)")
        }
        self.path = path
        self.speed = max(0, speed)
        self.wallClock = wallClock
    }

    var malformedEventCount: Int { decoder.malformedEventCount }

    func poll(timeout: Double, _ body: (DecodedAdvertisement) -> Void) throws(FeedError) -> Bool {
        let pollStart = wallClock()
        var delivered = 0
        while !ended {
            let record: BtsnoopRecord
            if let waiting = held {
                record = waiting
                held = nil
            } else {
                do {
                    guard let next = try reader.next() else {
                        ended = true
                        break
                    }
                    record = next
                } catch {
                    ended = true
                    throw FeedError("\(path): \(error)")
                }
            }
            if speed > 0 {
                let anchor = self.anchor ?? (record.timestamp.seconds, wallClock())
                self.anchor = anchor
                let due = anchor.wall + (record.timestamp.seconds - anchor.capture) / speed
                let wait = due - wallClock()
                if wait > 0 {
                    let left = timeout - (wallClock() - pollStart)
                    if wait > left {
                        held = record
                        WallClock.pause(max(0, left))
                        return true
                    }
                    WallClock.pause(wait)
                }
            }
            now = record.timestamp
            guard record.packetType == .event, record.direction == .received else { continue }
            decoder.decode(eventPacket: record.packet, at: record.timestamp) { advert in
                delivered += 1
                body(advert)
            }
            // As fast as possible still hands back control now and then, so the caller can publish.
            if speed == 0 && delivered >= 256 { return true }
        }
        return !ended
    }

    func close() {}
}
