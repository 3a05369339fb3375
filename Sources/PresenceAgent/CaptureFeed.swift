import BeaconCore
import Timekeeping

/// A btsnoop capture replayed at its recorded pace, `speed` times faster, or (speed 0) as fast as
/// the CPU allows. Times are the capture's own, at every speed.
///
/// The first record is read when the feed opens, so `now` is the capture's first timestamp before
/// anything is replayed: the agent's clock starts there, and what it does before the first
/// advertisement (the configuration it applies, the state it restores) is dated in the capture's
/// time. Started at the wall clock instead, a capture recorded in the past could never let an exit
/// or a silence fall due (issue 15).
final class CaptureFeed: AdvertisementFeed {
    private let reader: BtsnoopFileReader
    private let path: String
    private let speed: Double
    private let clock: any ServiceClock
    private var decoder = AdvertisementDecoder()
    /// The first record's capture time and the wall time it was replayed at.
    private var anchor: (capture: Double, wall: Double)?
    /// The next record, read but not yet due.
    private var held: BtsnoopRecord?
    private var ended = false
    private(set) var now: Instant

    /// Throws when the file cannot be opened or its header and first record are not btsnoop.
    init(path: String, speed: Double, clock: any ServiceClock) throws(FeedError) {
        do {
            reader = try BtsnoopFileReader(path: path)
        } catch {
            throw FeedError("\(path): \(error)")
        }
        self.path = path
        self.speed = max(0, speed)
        self.clock = clock
        now = Instant(seconds: 0)
        held = try readRecord()
        // An empty capture has no time of its own: its (immediate) end is now.
        now = held?.timestamp ?? clock.now()
    }

    var malformedEventCount: Int { decoder.malformedEventCount }

    func poll(timeout: Double, _ body: (DecodedAdvertisement) -> Void) throws(FeedError) -> Bool {
        let step = AdvertisementFeeds.sourceSecondsPerPoll
        let timeout = speed > 0 ? min(timeout, step / speed) : timeout
        let pollStart = clock.now().seconds
        let pollFrom = now
        var delivered = 0
        while !ended {
            let record: BtsnoopRecord
            if let waiting = held {
                record = waiting
                held = nil
            } else {
                guard let next = try readRecord() else { break }
                record = next
            }
            if speed > 0 {
                let anchor = self.anchor ?? (record.timestamp.seconds, clock.now().seconds)
                self.anchor = anchor
                let due = anchor.wall + (record.timestamp.seconds - anchor.capture) / speed
                let wait = due - clock.now().seconds
                if wait > 0 {
                    let left = timeout - (clock.now().seconds - pollStart)
                    if wait > left {
                        held = record
                        clock.sleep(for: left)
                        // The capture's clock runs on at its pace while nothing is recorded, so an
                        // exit that falls due in a quiet stretch happens when it would have live.
                        let paced = anchor.capture + (clock.now().seconds - anchor.wall) * speed
                        now = max(now, Instant(seconds: min(paced, record.timestamp.seconds)))
                        return true
                    }
                    clock.sleep(for: wait)
                }
            }
            now = record.timestamp
            guard record.packetType == .event, record.direction == .received else { continue }
            decoder.decode(eventPacket: record.packet, at: record.timestamp) { advert in
                delivered += 1
                body(advert)
            }
            // As fast as possible still hands back control now and then, so the caller can publish,
            // and each `sourceSecondsPerPoll` of the capture's time, so its clock ticks through a
            // stretch with no advertisements as it did live (a silence falls due 5 s in, not at the end).
            if speed == 0 && (delivered >= 256 || now - pollFrom >= step) { return true }
        }
        return !ended
    }

    func close() {}

    /// The next record; nil (and `ended`) at the end of the file or after an error.
    private func readRecord() throws(FeedError) -> BtsnoopRecord? {
        do {
            guard let record = try reader.next() else {
                ended = true
                return nil
            }
            return record
        } catch {
            ended = true
            throw FeedError("\(path): \(error)")
        }
    }
}
