import BeaconCore

/// What `presence-aggregator watch` shows of the foreign nodes, whose own topics a viewer may not
/// read (ESPresense's carry phones' keys): per node, retained on `<root>/aggregator/nodes/<node>`,
/// its kind, room and status and the devices it hears now as the aggregator took them — our
/// topic ids, distances on our scale, our proximities, never a key — at most once a second and
/// only for the nodes whose summary changed.
///
/// `{"node":"kitchen","room":"kitchen","source":"espresense","status":"online","rejected":0,"beacons":[{"id":"alice-keys","distance":2.3,"proximity":"near"}]}`:
/// `source` is `espresense` or `gateway`; `status` is absent while the node has said none (a
/// gateway whose availability topic is not known never does); `rejected` counts the node's
/// messages refused since the aggregator started (the log names why, once a minute); `beacons`
/// lists the nearest `maximumListed`, nearest first, distances to 0.1 m. A node's list empties
/// when it goes offline.
public struct ForeignNodeSummaries: Sendable {
    struct Heard: Sendable, Hashable {
        var distance: Double
        var proximity: Proximity
    }

    struct Node: Sendable {
        var kind: NodeKind
        var room: String
        var online: Bool?
        var rejected = 0
        var heard: [String: Heard] = [:]
    }

    public let root: String
    private var nodes: [String: Node] = [:]
    /// Refusals of nodes not summarised yet (a gateway is announced at the tick after its first
    /// message), handed to their summary when it comes.
    private var rejectedEarly: [String: Int] = [:]
    /// Nodes whose summary changed since it was last published.
    private var pending: Set<String> = []
    private var lastPublished: Instant?

    /// The most nodes summarised; a site has a few dozen, and a flood of made-up names stops here.
    public static let maximumNodes = 1_024
    /// The most devices listed per node.
    public static let maximumListed = 32
    /// Seconds between two rounds of summaries.
    public static let interval = 1.0

    public init(topics: TopicScheme) {
        root = topics.root
    }

    /// The topic of node `node`'s summary.
    public static func topic(root: String, node: String) -> String { "\(root)/aggregator/nodes/\(node)" }

    /// One input a foreign source gave the core.
    public mutating func note(_ input: ForeignNodeInput) {
        switch input {
        case .nodeInfo(let node, let room, _, let kind):
            if var known = nodes[node] {
                guard known.kind != kind || known.room != room else { return }
                known.kind = kind
                known.room = room
                nodes[node] = known
            } else {
                guard nodes.count < Self.maximumNodes, TopicLevelID.isValid(node) else { return }
                nodes[node] = Node(kind: kind, room: room, rejected: rejectedEarly.removeValue(forKey: node) ?? 0)
            }
            pending.insert(node)
        case .nodeStatus(let node, let online):
            guard var known = nodes[node], known.online != online else { return }
            known.online = online
            if !online { known.heard = [:] }
            nodes[node] = known
            pending.insert(node)
        case .measurement(let measurement):
            guard var known = nodes[measurement.node] else { return }
            let id = measurement.alias?.rawValue ?? measurement.beacon.rawValue
            var heard: Heard?
            if !measurement.isSilence, let distance = measurement.distance {
                heard = Heard(distance: (distance * 10).rounded() / 10, proximity: measurement.proximity)
            }
            guard known.heard[id] != heard else { return }
            known.heard[id] = heard
            nodes[measurement.node] = known
            pending.insert(measurement.node)
        }
    }

    /// A message of node `node` was refused.
    public mutating func noteRejected(node: String) {
        if nodes[node] != nil {
            nodes[node]!.rejected += 1
            pending.insert(node)
        } else if rejectedEarly[node] != nil || rejectedEarly.count < Self.maximumNodes {
            rejectedEarly[node, default: 0] += 1
        }
    }

    /// The retained summaries due at `time`: those that changed, once an interval.
    public mutating func due(at time: Instant) -> [AggregatorPublication] {
        guard !pending.isEmpty else { return [] }
        if let last = lastPublished, time.since(last) < Self.interval { return [] }
        lastPublished = time
        let changed = pending.sorted()
        pending = []
        return changed.compactMap { id in nodes[id].map { .retained(Self.topic(root: root, node: id), Self.payload(id, $0)) } }
    }

    /// Every node's summary as it stands, for an instance that has just taken the lead: a standby
    /// notes what it hears but sends nothing, so what it marked as due while following, and the
    /// nodes whose reports have not changed since, would otherwise never be published.
    public mutating func all() -> [AggregatorPublication] {
        pending = []
        return nodes.keys.sorted().map { id in .retained(Self.topic(root: root, node: id), Self.payload(id, nodes[id]!)) }
    }

    static func payload(_ id: String, _ node: Node) -> String {
        var json = JSONObjectWriter()
        json.add("node", id)
        json.add("room", node.room)
        json.add("source", node.kind.name)
        if let online = node.online { json.add("status", online ? "online" : "offline") }
        json.add("rejected", node.rejected)
        let listed = node.heard.sorted { ($0.value.distance, $0.key) < ($1.value.distance, $1.key) }.prefix(maximumListed)
        json.addRaw("beacons", JSONObjectWriter.array(listed.map { entry in
            var beacon = JSONObjectWriter()
            beacon.add("id", entry.key)
            beacon.add("distance", entry.value.distance, decimals: 1)
            beacon.add("proximity", entry.value.proximity.rawValue)
            return beacon.json
        }))
        return json.json
    }
}
