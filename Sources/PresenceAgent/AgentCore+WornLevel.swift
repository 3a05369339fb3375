import BeaconCore

/// A beacon marked worn (its known-beacon entry's `worn`) publishes by its level (`WornLevel`,
/// docs/MQTT.md's `level`): the mean of its adverts over the last second, published when it moved
/// by the step, and "not heard" after `wornLevel.silenceAfter` seconds without an advert, instead
/// of the track's publish policy and silence. Every other beacon publishes exactly as before: none
/// of this runs while no known beacon is worn.
extension AgentCore {
    /// At a new track: a worn known beacon starts its level afresh; any other has none.
    mutating func startWornLevel(_ key: BeaconID.Components, known: KnownBeacon?) {
        if known?.worn == true {
            wornLevels[key] = WornLevel()
        } else if !wornLevels.isEmpty {
            wornLevels[key] = nil
        }
    }

    /// Whether the advert just folded into the track at `slot` publishes: by its level for a worn
    /// beacon, by the track's policy (`update.shouldPublish`) for the rest.
    mutating func publishes(_ slot: Int, _ update: TrackUpdate, rssi: Int, at time: Instant) -> Bool {
        guard !wornLevels.isEmpty, tracks.group(at: slot) == .known else { return update.shouldPublish }
        let key = tracks.key(at: slot)
        guard var level = wornLevels[key] else { return update.shouldPublish }
        let publish = level.observe(
            rssi: rssi, filtered: update.rssiFiltered, at: time, heartbeat: effective.tracking.publish.heartbeat,
            effective.tracking.wornLevel)
        wornLevels[key] = level
        return publish
    }

    /// The level a measurement of the beacon at `slot` carries: the last published one of a worn
    /// beacon, nil for the rest.
    func wornLevel(_ slot: Int) -> Double? {
        wornLevels.isEmpty ? nil : wornLevels[tracks.key(at: slot)]?.publishedLevel
    }

    /// Whether the beacon at `slot` says "not heard" by its level rather than by its track.
    func followsLevel(_ slot: Int) -> Bool {
        !wornLevels.isEmpty && wornLevels[tracks.key(at: slot)] != nil
    }

    /// The worn beacons that went unheard for `wornLevel.silenceAfter` at `time`: the slot of each,
    /// to say so once. Levels of beacons no longer tracked are dropped.
    mutating func wornSilences(at time: Instant) -> [Int] {
        guard !wornLevels.isEmpty else { return [] }
        var silent: [Int] = []
        for key in Array(wornLevels.keys) {
            guard let slot = tracks.slot(of: key) else {
                wornLevels[key] = nil
                continue
            }
            if wornLevels[key]?.checkSilence(at: time, effective.tracking.wornLevel) == true { silent.append(slot) }
        }
        return silent.sorted()
    }
}
