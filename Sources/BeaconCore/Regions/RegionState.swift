/// A region's state on one node, Core Location's `CLRegionState`; the raw value is the payload of
/// the retained `…/regions/<region>/state` topic.
public enum RegionState: String, Hashable, Sendable, CaseIterable {
    /// A matching beacon was heard within the exit delay.
    case inside
    /// No matching beacon for the exit delay.
    case outside
    /// Not scanned long enough to know: the first exit delay after start or after the region was added.
    case unknown
}
