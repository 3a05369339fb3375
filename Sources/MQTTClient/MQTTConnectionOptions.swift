/// MQTT protocol level spoken to the broker.
public enum MQTTProtocolVersion: Sendable, Hashable {
    case v311
    case v5
}

/// User name and password sent in CONNECT.
public struct MQTTCredentials: Sendable, Hashable {
    public var username: String
    public var password: String?

    public init(username: String, password: String?) {
        self.username = username
        self.password = password
    }
}

/// TLS files, as paths (libmosquitto reads them; OpenSSL verifies the broker's certificate
/// against `caFile` and its name against the host).
public struct MQTTTLSConfiguration: Sendable, Hashable {
    public var caFile: String
    /// Client certificate and key, both or neither, for brokers that require a certificate.
    public var certificateFile: String?
    public var keyFile: String?

    public init(caFile: String, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// The message the broker publishes for us when we vanish without a DISCONNECT.
public struct MQTTLastWill: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, string: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }
}

/// Everything needed to connect. Defaults suit a long-running service on a local broker.
public struct MQTTConnectionOptions: Sendable {
    public var host: String
    public var port: Int
    /// Must be unique per broker; the broker kicks the older of two clients with the same id.
    public var clientID: String
    /// Keepalive in whole seconds (MQTT's unit); libmosquitto requires at least 5.
    public var keepAliveSeconds: Int
    /// True: the broker forgets subscriptions and queued messages at disconnect.
    /// False: a persistent session (the broker keeps them while we are away).
    public var cleanSession: Bool
    public var protocolVersion: MQTTProtocolVersion
    public var credentials: MQTTCredentials?
    public var tls: MQTTTLSConfiguration?
    /// Registered with the broker at every (re)connect.
    public var lastWill: MQTTLastWill?
    public var reconnect: MQTTReconnectPolicy
    /// Most QoS ≥ 1 messages that may wait for their acknowledgement (queued while disconnected
    /// or in flight). libmosquitto's own queue is unbounded; beyond this limit `publish` drops the
    /// new message, counts it, and throws `queueFull`. At most 65,000 (message ids are 16-bit).
    public var maxPendingMessages: Int

    public init(
        host: String = "127.0.0.1",
        port: Int = 1883,
        clientID: String,
        keepAliveSeconds: Int = 30,
        cleanSession: Bool = true,
        protocolVersion: MQTTProtocolVersion = .v311,
        credentials: MQTTCredentials? = nil,
        tls: MQTTTLSConfiguration? = nil,
        lastWill: MQTTLastWill? = nil,
        reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(),
        maxPendingMessages: Int = 1000
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepAliveSeconds = keepAliveSeconds
        self.cleanSession = cleanSession
        self.protocolVersion = protocolVersion
        self.credentials = credentials
        self.tls = tls
        self.lastWill = lastWill
        self.reconnect = reconnect
        self.maxPendingMessages = maxPendingMessages
    }
}
