import MQTTClient

/// Where the gateways of one `sources.gateways` entry say `online` or `offline` (retained, their
/// last will `offline`): the filter the aggregator subscribes to and which of its levels names
/// the gateway.
///
/// - Beside the adverts (the default): OpenMQTTGateway and Theengs Gateway publish it on
///   `<…>/<gateway>/LWT` beside `<…>/<gateway>/BTtoMQTT`, so `home/+/BTtoMQTT/+` gives
///   `home/+/LWT`, the gateway at the same level.
/// - Configured (`availability:`): a Theengs Gateway's `lwt_topic` may be anywhere. A topic
///   (`gateways/hall/lwt`) is the availability of the one gateway the entry's topic names; a
///   filter with one `+` (`lwt/+/state`) has the gateway's name at that level.
public struct GatewayAvailability: Sendable, Hashable {
    /// The filter subscribed to.
    public let filter: String
    /// The level of a matching topic that names the gateway; nil when `filter` is one topic, that
    /// of the gateway the entry's topic names.
    public let gatewayLevel: Int?
    /// Whether this is `<…>/<gateway>/LWT` beside the adverts, not `availability:`.
    public let isBesideAdverts: Bool

    /// Why a configured availability cannot serve its entry.
    public struct Invalid: Error, Hashable, Sendable {
        public var reason: String
    }

    /// The default: `<levels up to the gateway's>/LWT` when the entry's topic has the gateway's
    /// level right before `BTtoMQTT`; nil otherwise (no one knows where such a gateway says it).
    public static func besideAdverts(of settings: GatewaySettings) -> GatewayAvailability? {
        guard settings.namesGatewayBeforeBTtoMQTT, let level = settings.gatewayLevel else { return nil }
        let levels = settings.topic.split(separator: "/", omittingEmptySubsequences: false)
        return GatewayAvailability(filter: levels[...level].joined(separator: "/") + "/LWT", gatewayLevel: level, isBesideAdverts: true)
    }

    /// `availability:` as written for an entry whose topic names gateway `namedGateway` (nil: its
    /// gateway level is a `+`, so it reads any gateway).
    public init(configured text: String, namedGateway: String?) throws(Invalid) {
        let levels = text.split(separator: "/", omittingEmptySubsequences: false)
        let pluses = levels.indices.filter { levels[$0] == "+" }
        guard (try? TopicFilter(text)) != nil, text.utf8.count <= 1_024, !levels.contains("#"), pluses.count <= 1 else {
            throw Invalid(reason: "expected the gateways' availability topic (home/TheengsGateway/LWT), or a filter with one + where the gateway's name goes (lwt/+/state)")
        }
        // A topic without `+` cannot say which of many gateways it is about.
        guard !pluses.isEmpty || namedGateway != nil else {
            throw Invalid(reason: "'\(text.prefix(80))' names no gateway, but this entry's topic reads any: put + where the gateway's name goes, or name the one gateway in topic")
        }
        filter = text
        gatewayLevel = pluses.first
        isBesideAdverts = false
    }

    private init(filter: String, gatewayLevel: Int?, isBesideAdverts: Bool) {
        self.filter = filter
        self.gatewayLevel = gatewayLevel
        self.isBesideAdverts = isBesideAdverts
    }

    /// The name of the gateway a topic this filter matched is about: the level `gatewayLevel`, or
    /// the entry's named gateway for a filter that is one topic.
    public func gateway(in topic: String, namedGateway: String?) -> String? {
        guard let gatewayLevel else { return namedGateway }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard gatewayLevel < levels.count, !levels[gatewayLevel].isEmpty else { return nil }
        let name = String(levels[gatewayLevel])
        // An entry that reads one gateway follows that one's availability only.
        guard namedGateway == nil || namedGateway == name else { return nil }
        return name
    }

    /// The topic where gateway `name` says it, for its Home Assistant device; `advertTopic` is one
    /// of its adverts' topics when known, whose own levels give the default's (the entry's filter
    /// may have more than one `+`).
    public func topic(of name: String, advertTopic: String? = nil) -> String? {
        if isBesideAdverts, let gatewayLevel {
            if let advertTopic {
                let levels = advertTopic.split(separator: "/", omittingEmptySubsequences: false)
                guard gatewayLevel < levels.count else { return nil }
                return levels[...gatewayLevel].joined(separator: "/") + "/LWT"
            }
        }
        guard let gatewayLevel else { return filter }
        var levels = filter.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        levels[gatewayLevel] = name
        // Any other `+` (a default under `+/+/BTtoMQTT/+`) cannot be filled without an advert.
        return levels.contains("+") ? nil : levels.joined(separator: "/")
    }
}
