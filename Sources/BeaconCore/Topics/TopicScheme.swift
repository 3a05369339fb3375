/// Every topic of the MQTT contract (docs/MQTT.md), built from a validated root.
///
/// Topic levels are built only from `TopicLevelID`s and canonical beacon ids, which cannot hold
/// `/`, `+`, `#` or NUL, so no id from a config or an advertisement can reach another topic.
public struct TopicScheme: Hashable, Sendable {
    /// The first level or levels of every topic, `presence` by default.
    public let root: String

    /// `root` may have several levels (`hq/presence`); each level follows the id rule, so the root
    /// cannot hold wildcards, NUL, empty levels or a leading or trailing `/`.
    public init?(root: String) {
        let levels = root.split(separator: "/", omittingEmptySubsequences: false)
        guard !levels.isEmpty, levels.count <= 8, levels.allSatisfy({ TopicLevelID.isValid(String($0)) }) else { return nil }
        self.root = root
    }

    /// The scheme under the root `presence`.
    public static let `default` = TopicScheme(root: "presence")!

    /// Why `root` is not usable, for the configuration error.
    public static let rootRule = "one or more '/'-separated levels of \(TopicLevelID.rule)"

    // MARK: Agent

    /// `<root>/nodes/<node>/status`: `online` or `offline` (the node's last will), retained.
    public func nodeStatus(_ node: TopicLevelID) -> String { "\(root)/nodes/\(node)/status" }
    /// `<root>/nodes/<node>/info`: the node's room, version, source and config revisions, retained.
    public func nodeInfo(_ node: TopicLevelID) -> String { "\(root)/nodes/\(node)/info" }
    /// `<root>/nodes/<node>/telemetry`: the node's counters, every 30 s.
    public func nodeTelemetry(_ node: TopicLevelID) -> String { "\(root)/nodes/\(node)/telemetry" }
    /// `<root>/nodes/<node>/config`: the operator's settings for one node, retained.
    public func nodeConfig(_ node: TopicLevelID) -> String { "\(root)/nodes/\(node)/config" }
    /// `<root>/nodes/<node>/calibration`: the receiver offset the aggregator solved for one node
    /// (`PushedCalibration`), retained; beneath the operator's settings.
    public func nodeCalibration(_ node: TopicLevelID) -> String { "\(root)/nodes/\(node)/calibration" }
    /// `<root>/nodes/<node>/config/status`: the node's answer to the last config message, retained.
    public func configStatus(_ node: TopicLevelID) -> String { "\(root)/nodes/\(node)/config/status" }
    /// `<root>/nodes/<node>/regions/<region>/state`: `inside`, `outside` or `unknown`, retained.
    public func regionState(_ node: TopicLevelID, _ region: TopicLevelID) -> String { "\(root)/nodes/\(node)/regions/\(region)/state" }
    /// `<root>/nodes/<node>/regions/<region>/event`: an `enter` or `exit` event.
    public func regionEvent(_ node: TopicLevelID, _ region: TopicLevelID) -> String { "\(root)/nodes/\(node)/regions/\(region)/event" }
    /// `<root>/nodes/<node>/regions/<region>/ranging`: the region's beacons, nearest first.
    public func regionRanging(_ node: TopicLevelID, _ region: TopicLevelID) -> String {
        Self.join(root, "/nodes/", node.rawValue, "/regions/", region.rawValue, "/ranging")
    }
    /// `beacon` is the alias of a known beacon, else its canonical id.
    public func measurement(_ beacon: String, _ node: TopicLevelID) -> String {
        Self.join(root, "/beacons/", beacon, "/", node.rawValue, "")
    }

    /// `a + b + c + d + e + f`, in one allocation: the agent builds a measurement or ranging topic
    /// per publish, and interpolating the ids through `description` cost about a tenth of its work.
    /// The parts' bytes are copied into the new string's storage at once (six `+=`, each checking
    /// and growing the string, were most of a topic's cost).
    @inline(__always)
    private static func join(
        _ a: String, _ b: String, _ c: String, _ d: String, _ e: String, _ f: String
    ) -> String {
        let count = a.utf8.count + b.utf8.count + c.utf8.count + d.utf8.count + e.utf8.count + f.utf8.count
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var written = copy(a, into: buffer, at: 0)
            written = copy(b, into: buffer, at: written)
            written = copy(c, into: buffer, at: written)
            written = copy(d, into: buffer, at: written)
            written = copy(e, into: buffer, at: written)
            return copy(f, into: buffer, at: written)
        }
    }

    /// Copies `part`'s UTF-8 into `buffer` from `offset` on; returns where it ends.
    @inline(__always)
    private static func copy(_ part: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        let copied = part.utf8.withContiguousStorageIfAvailable { bytes -> Int in
            if let source = bytes.baseAddress { (buffer.baseAddress! + offset).initialize(from: source, count: bytes.count) }
            return bytes.count
        }
        if let copied { return offset + copied }
        var end = offset
        for byte in part.utf8 {
            buffer[end] = byte
            end += 1
        }
        return end
    }

    // MARK: Configuration

    /// `<root>/config/regions`: the regions every node monitors, retained.
    public var configRegions: String { "\(root)/config/regions" }
    /// `<root>/config/beacons`: the known beacons, phones and watches, retained.
    public var configBeacons: String { "\(root)/config/beacons" }

    // MARK: Aggregator

    /// `<root>/calibration`: the nodes' offsets solved from each other's node beacons, retained.
    public var calibration: String { "\(root)/calibration" }
    /// `<root>/aggregator/status`: `online` or `offline` (the aggregator's last will), retained.
    public var aggregatorStatus: String { "\(root)/aggregator/status" }
    /// `<root>/locations/<beacon>`: a beacon's decided room with its details, retained.
    public func location(_ beacon: String) -> String { "\(root)/locations/\(beacon)" }
    /// `<root>/locations/<beacon>/room`: a beacon's decided room as plain text, or `not_home`, retained.
    public func locationRoom(_ beacon: String) -> String { "\(root)/locations/\(beacon)/room" }
    /// `<root>/rooms/<room>`: who is in a room, retained.
    public func room(_ room: String) -> String { "\(root)/rooms/\(room)" }
    /// `<root>/events`: `room_changed`, `arrived` and `departed` events.
    public var events: String { "\(root)/events" }

    /// Every node's measurements, for the aggregator: `<root>/beacons/+/+`.
    public var allMeasurements: String { "\(root)/beacons/+/+" }
    /// Every node's status: `<root>/nodes/+/status`.
    public var allNodeStatuses: String { "\(root)/nodes/+/status" }

    /// Every node's info: `<root>/nodes/+/info`.
    public var allNodeInfos: String { "\(root)/nodes/+/info" }

    /// The node id of a `<root>/nodes/<node>/status` topic, nil for any other topic.
    public func nodeOfStatusTopic(_ topic: String) -> String? { node(of: topic, leaf: "/status") }

    /// The node id of a `<root>/nodes/<node>/info` topic, nil for any other topic.
    public func nodeOfInfoTopic(_ topic: String) -> String? { node(of: topic, leaf: "/info") }

    private func node(of topic: String, leaf: String) -> String? {
        let prefix = root + "/nodes/"
        guard topic.hasPrefix(prefix), topic.hasSuffix(leaf) else { return nil }
        let node = topic.dropFirst(prefix.count).dropLast(leaf.count)
        return node.isEmpty || node.contains("/") ? nil : String(node)
    }

    /// The node of a `<root>/beacons/<beacon>/<node>` topic, nil for any other topic: the node of
    /// `measurementTopicParts`, read from the topic's bytes, without a `String` of the beacon or
    /// of the prefix (every measurement's topic; issue 38).
    public func measurementTopicNode(_ topic: String) -> String? {
        var topic = topic
        var root = root
        return topic.withUTF8 { bytes in
            root.withUTF8 { rootBytes -> String? in
                let levels: StaticString = "/beacons/"
                let start = rootBytes.count + levels.utf8CodeUnitCount
                guard bytes.count > start, bytes.prefix(rootBytes.count).elementsEqual(rootBytes),
                    UnsafeBufferPointer(rebasing: bytes[rootBytes.count..<start])
                        .elementsEqual(UnsafeBufferPointer(start: levels.utf8Start, count: levels.utf8CodeUnitCount)),
                    let slash = bytes[start...].firstIndex(of: UInt8(ascii: "/")), slash > start,
                    slash + 1 < bytes.count, !bytes[(slash + 1)...].contains(UInt8(ascii: "/"))
                else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[(slash + 1)...]), as: UTF8.self)
            }
        }
    }

    /// (beacon, node) of a `<root>/beacons/<beacon>/<node>` topic, nil for any other topic.
    public func measurementTopicParts(_ topic: String) -> (beacon: String, node: String)? {
        let prefix = root + "/beacons/"
        guard topic.hasPrefix(prefix) else { return nil }
        let parts = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
