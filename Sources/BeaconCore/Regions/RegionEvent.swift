/// What the region monitor reports; the agent turns each into a publish (docs/MQTT.md).
public enum RegionEvent: Hashable, Sendable {
    /// The region's state changed: publish it, retained, on `…/regions/<region>/state`.
    case stateChanged(region: TopicLevelID, state: RegionState, at: Instant)
    /// A beacon crossed into the region (`didEnterRegion`); not sent when `notifyOnEntry` is off.
    case enter(region: TopicLevelID, beacon: BeaconID, at: Instant)
    /// The region was left (`didExitRegion`): no matching beacon for the exit delay. `beacon` is the
    /// last matching beacon heard, nil when the region was only restored as inside and none was heard
    /// since. Not sent when `notifyOnExit` is off.
    case exit(region: TopicLevelID, beacon: BeaconID?, at: Instant)
    /// The region is no longer configured: clear its retained state topic.
    case removed(region: TopicLevelID)
}
