import ArgumentParser
import PresenceAggregator

/// The configuration flags `run` and `check-config` share: both load them through
/// `AggregatorConfigurationLoad`, so what `check-config` accepts `run` accepts.
struct AggregatorOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "YAML configuration file (etc/presence-aggregator.yaml documents every key).")
    var configFile: String?

    @OptionGroup var brokerOptions: BrokerOptions

    @Option(help: "Client certificate file (with --key-file).")
    var certFile: String?

    @Option(help: "Client key file (with --cert-file).")
    var keyFile: String?

    @Option(help: "MQTT client id (PRESENCE_CLIENT_ID).")
    var clientID: String?

    @Option(name: .customLong("away-after"), help: "Seconds without evidence before a beacon is not_home (PRESENCE_AWAY_AFTER).")
    var awayAfter: String?

    @Option(help: "Decision margin, dB (PRESENCE_MARGIN).")
    var margin: String?

    @Option(help: "How fast the current room's held score may fall, dB/s (PRESENCE_FALL_RATE).")
    var fallRate: String?

    @Option(help: "Decision dwell, seconds (PRESENCE_DWELL).")
    var dwell: String?

    @Option(help: "Integrated lead needed to switch, dB·s (PRESENCE_EVIDENCE).")
    var evidence: String?

    @Option(help: "Largest lead one instant contributes, dB (PRESENCE_LEAD_CAP).")
    var leadCap: String?

    @Option(help: "Seconds after a beacon's first evidence before deciding (PRESENCE_SETTLE_TIME).")
    var settleTime: String?

    @Option(help: "dB the current room defends with while its motion sensor reports motion, 0: off (PRESENCE_MOTION_HOLD).")
    var motionHold: String?

    @Option(help: "Seconds a node's evidence may lag the beacon's newest before it is dropped (PRESENCE_STALE_AFTER).")
    var staleAfter: String?

    @Option(help: "A site model file written by `learn`: decide rooms with it, the physics decision as its fallback (decision.model, PRESENCE_MODEL).")
    var model: String?

    @Option(help: "Path-loss exponent, as the agents' (PRESENCE_PATH_LOSS_EXPONENT).")
    var pathLossExponent: String?

    @Option(help: "Seconds between decision ticks, 0.05–1 (PRESENCE_TICK_INTERVAL).")
    var tickInterval: String?

    @Option(help: "Seconds a beacon that is not a known beacon may stay unheard before it is forgotten; 0: never.")
    var forgetAfter: String?

    @Option(help: "Most beacons that are not known beacons tracked at once; beyond, the least recently heard is evicted (PRESENCE_MAX_UNKNOWN_BEACONS).")
    var maxUnknownBeacons: String?

    @Flag(help: "Do not publish Home Assistant discovery.")
    var noDiscovery = false

    @Option(help: "Home Assistant discovery prefix (default homeassistant).")
    var discoveryPrefix: String?

    @Option(help: "MQTT keepalive, seconds 5–3600 (PRESENCE_KEEPALIVE); a hung leader is noticed after 1.5–2 × this.")
    var keepalive: String?

    @Flag(help: "Run as one of several instances for this site: only the lease holder publishes (PRESENCE_FAILOVER).")
    var failover = false

    @Option(help: "This instance's id among the site's aggregators, with --failover (PRESENCE_INSTANCE).")
    var instance: String?

    @Option(help: "Seconds without a sign of the leader before a standby takes over anyway (PRESENCE_LEASE_TIMEOUT).")
    var leaseTimeout: String?

    /// The flags given, keyed by setting.
    var flags: [AggregatorSetting: String] {
        var flags = brokerOptions.flags
        flags[.certificateFile] = certFile
        flags[.keyFile] = keyFile
        flags[.clientID] = clientID
        flags[.awayTimeout] = awayAfter
        flags[.margin] = margin
        flags[.fallRate] = fallRate
        flags[.dwell] = dwell
        flags[.evidenceToSwitch] = evidence
        flags[.leadCap] = leadCap
        flags[.settleTime] = settleTime
        flags[.motionHold] = motionHold
        flags[.staleAfter] = staleAfter
        flags[.pathLossExponent] = pathLossExponent
        flags[.model] = model
        flags[.tickInterval] = tickInterval
        flags[.forgetAfter] = forgetAfter
        flags[.maxUnknownBeacons] = maxUnknownBeacons
        flags[.discoveryPrefix] = discoveryPrefix
        if noDiscovery { flags[.discovery] = "false" }
        flags[.keepAlive] = keepalive
        if failover { flags[.failover] = "true" }
        flags[.instance] = instance
        flags[.leaseTimeout] = leaseTimeout
        return flags
    }

}
