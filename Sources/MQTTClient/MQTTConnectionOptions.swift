/// MQTT protocol level spoken to the broker.
public enum MQTTProtocolVersion: Sendable, Hashable {
    /// MQTT 3.1.1, the default.
    case v311
    /// MQTT 5: reason codes on refusals, rejected subscriptions and rejected publishes.
    case v5
}

/// User name and password sent in CONNECT.
public struct MQTTCredentials: Sendable, Hashable {
    /// The user name the broker checks (with mosquitto, against its password file and ACL).
    public var username: String
    /// The password; nil sends the user name alone.
    public var password: String?

    /// Creates credentials from a user name and an optional password.
    public init(username: String, password: String?) {
        self.username = username
        self.password = password
    }
}

/// TLS files, as paths (libmosquitto reads them; OpenSSL verifies the broker's certificate
/// against `caFile` and its name against the host).
public struct MQTTTLSConfiguration: Sendable, Hashable {
    /// The PEM file of the certificate authority the broker's certificate must chain to.
    public var caFile: String
    /// Client certificate and key, both or neither, for brokers that require a certificate.
    public var certificateFile: String?
    /// The client's private key (PEM), with `certificateFile`.
    public var keyFile: String?

    /// Creates a TLS configuration; give the certificate and key together, or neither.
    public init(caFile: String, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// The message the broker publishes for us when we vanish without a DISCONNECT.
public struct MQTTLastWill: Sendable, Hashable {
    /// The topic the will is published to.
    public var topic: String
    /// The will's payload, as bytes.
    public var payload: [UInt8]
    /// The QoS the broker publishes the will with.
    public var qos: MQTTQoS
    /// Whether the broker retains the will (the default: a late subscriber still sees that we vanished).
    public var retain: Bool

    /// Creates a last will with a payload of bytes; retained at QoS 1 unless told otherwise.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// Creates a last will with a UTF-8 string payload, such as `offline`.
    public init(topic: String, string: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }
}

/// Everything needed to connect. Defaults suit a long-running service on a local broker.
public struct MQTTConnectionOptions: Sendable {
    /// The broker's host name or address (default `127.0.0.1`); with `port` 0, the absolute path of
    /// the broker's Unix-domain socket.
    public var host: String
    /// The broker's TCP port (default 1883; 8883 is the usual port for TLS); 0 for a Unix socket.
    public var port: Int
    /// Must be unique per broker; the broker kicks the older of two clients with the same id.
    public var clientID: String
    /// Keepalive in whole seconds (MQTT's unit); libmosquitto requires at least 5.
    public var keepAliveSeconds: Int
    /// True: the broker forgets subscriptions and queued messages at disconnect.
    /// False: a persistent session (the broker keeps them while we are away).
    public var cleanSession: Bool
    /// MQTT 5 with `cleanSession` false: how long (seconds) the broker keeps the session after the
    /// connection ends (sent as the CONNECT's session expiry interval). MQTT 5 ends a session with its
    /// connection unless told otherwise, so 0 (the default) makes a persistent session last only as
    /// long as the connection. Ignored for MQTT 3.1.1, where a broker keeps the session until the
    /// client comes back or its own `persistent_client_expiration`.
    public var sessionExpirySeconds: UInt32
    /// The MQTT protocol level (default 3.1.1).
    public var protocolVersion: MQTTProtocolVersion
    /// User name and password, or nil for an anonymous connection.
    public var credentials: MQTTCredentials?
    /// TLS files, or nil for a plain TCP connection.
    public var tls: MQTTTLSConfiguration?
    /// Registered with the broker at every (re)connect.
    public var lastWill: MQTTLastWill?
    /// The backoff between connection attempts (default 1 s doubling up to 60 s).
    public var reconnect: MQTTReconnectPolicy
    /// Most QoS ≥ 1 messages that may wait for their acknowledgement (queued while disconnected
    /// or in flight). libmosquitto's own queue is unbounded; beyond this limit `publish` drops the
    /// new message, counts it, and throws `queueFull`. At most 65,000 (message ids are 16-bit).
    public var maxPendingMessages: Int

    /// Creates options; only `clientID` has no default.
    ///
    /// The defaults: `127.0.0.1:1883`, keepalive 30 s, a clean session (session expiry 0), MQTT 3.1.1, no
    /// credentials, no TLS, no last will, the default ``MQTTReconnectPolicy``, and at most 1000 pending
    /// messages.
    public init(
        host: String = "127.0.0.1",
        port: Int = 1883,
        clientID: String,
        keepAliveSeconds: Int = 30,
        cleanSession: Bool = true,
        sessionExpirySeconds: UInt32 = 0,
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
        self.sessionExpirySeconds = sessionExpirySeconds
        self.protocolVersion = protocolVersion
        self.credentials = credentials
        self.tls = tls
        self.lastWill = lastWill
        self.reconnect = reconnect
        self.maxPendingMessages = maxPendingMessages
    }
}
