import BeaconCore
import Foundation
import RoomDecisions

/// Home Assistant's `mqtt_room` sensor rule, re-implemented from its source
/// (home-assistant/core, `homeassistant/components/mqtt_room/sensor.py`) so that
/// `presence-bench evaluate` scores it beside ours on the same advertisements: the rule a user
/// gets when Home Assistant decides the room from the nodes' per-advert distances.
///
/// The sensor keeps one room, the distance it was set from and when. A node's report replaces
/// them when the sensor has none yet, or the report comes from the same room, or its distance is
/// strictly lower, or the kept one is at least `timeout` (Home Assistant's default, 5 s) old.
/// Nothing smooths or holds a reading, so any nearer report moves the room at once.
///
/// Each advert is one report, its distance from the AltBeacon curve at a 1-m power of −59 dBm,
/// as publishers such as Theengs and room-assistant (update frequency 0) feed the sensor. Only the
/// order of distances matters to the rule, so any fixed calibration decides the same rooms.
public struct MQTTRoomBaseline: Sendable {
    /// The rule's settings, Home Assistant's defaults.
    public struct Parameters: Sendable, Hashable {
        /// How old the kept report may be before any report replaces it, seconds (the sensor's `timeout`).
        public var timeout = 5.0
        /// The 1-m power the publisher's distance curve assumes, dBm.
        public var power = -59.0
        public init() {}
    }

    public let parameters: Parameters
    /// The kept report: its room, distance and time.
    private var kept: (room: String, distance: Double, time: Double)?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// The AltBeacon library's curve fit: metres from an advert's RSSI and the 1-m power.
    func distance(rssi: Int) -> Double {
        let ratio = Double(rssi) / parameters.power
        return ratio < 1 ? pow(ratio, 10) : 0.89976 * pow(ratio, 7.7095) + 0.111
    }

    /// Folds in one advertisement of the beacon; returns the new room when it changed.
    public mutating func step(_ sample: TraceSample) -> String? {
        let time = sample.time.seconds
        let distance = distance(rssi: sample.rssi)
        if let kept, sample.room != kept.room, distance >= kept.distance, time - kept.time < parameters.timeout {
            return nil
        }
        let previous = kept?.room
        kept = (sample.room, distance, time)
        return sample.room == previous ? nil : sample.room
    }

    /// Decision rows of the rule over one beacon's advertisements (a recorded trace's published
    /// rows are skipped, as Bermuda's rule skips them: the rule is fed per advert).
    public static func decisions(of samples: [TraceSample], parameters: Parameters = Parameters())
        -> [(time: Instant, room: String)]
    {
        var rule = MQTTRoomBaseline(parameters: parameters)
        var rows: [(time: Instant, room: String)] = []
        for sample in samples where sample.publication == nil {
            if let room = rule.step(sample) { rows.append((sample.time, room)) }
        }
        return rows
    }
}
