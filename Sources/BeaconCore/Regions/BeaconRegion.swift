/// A region of beacons to monitor, Core Location's `CLBeaconRegion`: every beacon of a deployment
/// (`uuid`), of a group (`uuid` + `major`) or one beacon (`uuid` + `major` + `minor`).
///
/// The `id` is the operator's name for the region and unrelated to what beacons advertise.
/// A `minor` without a `major` cannot be built, so an invalid region never exists.
public struct BeaconRegion: Hashable, Sendable, CustomStringConvertible {
    /// The operator's name for the region, used in topics.
    public let id: TopicLevelID
    /// The proximity UUID every member advertises.
    public let uuid: BeaconUUID
    /// The major every member advertises; nil for every major of the UUID.
    public let major: UInt16?
    /// Only together with `major`.
    public let minor: UInt16?
    /// Whether crossing into the region is reported as an `enter` event (the state changes anyway).
    public var notifyOnEntry: Bool
    /// Whether leaving the region is reported as an `exit` event (the state changes anyway).
    public var notifyOnExit: Bool

    /// Nil when `minor` is given without `major`.
    public init?(
        id: TopicLevelID, uuid: BeaconUUID, major: UInt16? = nil, minor: UInt16? = nil,
        notifyOnEntry: Bool = true, notifyOnExit: Bool = true
    ) {
        guard minor == nil || major != nil else { return nil }
        self.id = id
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// Whether a beacon advertising these ids belongs to the region.
    public func matches(uuid: BeaconUUID, major: UInt16?, minor: UInt16?) -> Bool {
        guard uuid == self.uuid else { return false }
        if let wanted = self.major, wanted != major { return false }
        if let wanted = self.minor, wanted != minor { return false }
        return true
    }

    /// Whether `other` matches exactly the same beacons (its id and notify flags may differ).
    public func matchesSameBeacons(as other: BeaconRegion) -> Bool {
        uuid == other.uuid && major == other.major && minor == other.minor
    }

    /// `office (fda50693-…, major 1, minor 2)`.
    public var description: String {
        var out = "\(id) (\(uuid)"
        if let major { out += ", major \(major)" }
        if let minor { out += ", minor \(minor)" }
        return out + ")"
    }
}
