/// What kind of receiver a node is: one of our agents, or a foreign node (ESPresense and BLE
/// gateways article) with the topic where it publishes its own availability. It says where the
/// node's Home Assistant device reads its connectivity and which sensors it can fill.
public enum NodeKind: Sendable, Hashable {
    /// A `presence-agent`: status and telemetry under `<root>/nodes/<node>/`.
    case agent
    /// An ESPresense node: `<prefix>/rooms/<node>/status`, `online` retained, its last will
    /// `offline` retained (`statusTopic` and `setWill` in src/main.cpp of ESPresense).
    case espresense(statusTopic: String)
    /// A BLE-to-MQTT gateway: its last-will topic, `<base>/<gateway>/LWT` beside its
    /// `<base>/<gateway>/BTtoMQTT` (`online` retained, last will `offline` retained, as both
    /// OpenMQTTGateway and Theengs Gateway publish it by default) or its entry's `availability`
    /// (`GatewayAvailability`); nil when neither is known.
    case gateway(lastWillTopic: String?)

    /// The topic that says `online` or `offline` for the node: nil for an agent (its
    /// `<root>/nodes/<node>/status`, which `TopicScheme` names) and a gateway without one.
    public var foreignAvailabilityTopic: String? {
        switch self {
        case .agent: nil
        case .espresense(let topic): topic
        case .gateway(let topic): topic
        }
    }

    /// `agent`, `espresense` or `gateway`: how a foreign node's summary names its kind.
    public var name: String {
        switch self {
        case .agent: "agent"
        case .espresense: "espresense"
        case .gateway: "gateway"
        }
    }
}
