// The C boundary: the only file that imports CMosquitto. It owns the `mosquitto *`, turns
// `MOSQ_ERR_*`, CONNACK and reason codes into `MQTTError`, and forwards libmosquitto's callbacks
// to a `MosquittoEventHandler`.
//
// Threads. libmosquitto runs every callback from inside `mosquitto_loop`, and only
// `MQTTConnectionCore`'s network thread calls `mosquitto_loop` (we do not use
// `mosquitto_loop_start`). So all `MosquittoEventHandler` methods run on that one thread, in the
// order the packets arrived:
//   on_connect_v5     -> didReceiveConnack     (CONNACK read)
//   on_disconnect_v5  -> didDisconnect         (socket closed, either side)
//   on_publish_v5     -> didCompletePublish    (QoS 0 written; QoS 1 PUBACK; QoS 2 PUBCOMP)
//   on_message_v5     -> didReceive            (PUBLISH from the broker, after QoS 2 PUBREL)
//   on_subscribe_v5   -> didSubscribe          (SUBACK)
//   on_unsubscribe_v5 -> didUnsubscribe        (UNSUBACK)
//   on_log            -> log                   (also on the thread of whoever called into
//                                               libmosquitto: publish logs "sending PUBLISH")
// `publish`, `subscribe`, `unsubscribe` and `disconnect` are called from any thread (tasks of the
// owner); `mosquitto_threaded_set(true)` makes libmosquitto guard its state with its own mutexes
// and wake `mosquitto_loop` through its socket pair instead of writing from the caller's thread.

import CMosquitto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives libmosquitto's callbacks, on the network thread (`log` also on callers' threads;
/// see the file comment). Implementations must not call into libmosquitto while holding a lock
/// that these methods take.
protocol MosquittoEventHandler: AnyObject, Sendable {
    func didReceiveConnack(_ handle: MosquittoHandle, reasonCode: Int, sessionPresent: Bool)
    func didDisconnect(_ handle: MosquittoHandle, error: MQTTError?)
    func didCompletePublish(_ handle: MosquittoHandle, messageID: Int32, reasonCode: Int)
    func didReceive(_ handle: MosquittoHandle, message: MQTTMessage)
    func didSubscribe(_ handle: MosquittoHandle, messageID: Int32, grantedQoS: [Int])
    func didUnsubscribe(_ handle: MosquittoHandle, messageID: Int32)
    func log(_ handle: MosquittoHandle, level: MosquittoLogLevel, message: String)
    /// Whether a line of `level` would be logged at all: libmosquitto writes a debug line per
    /// packet, not worth a `String` each when nobody reads it.
    func logs(_ level: MosquittoLogLevel) -> Bool
}

enum MosquittoLogLevel: Sendable {
    case debug, info, notice, warning, error
}

/// How a publish or subscribe call went.
enum MosquittoSendOutcome: Sendable, Equatable {
    /// Written or queued for the connected socket.
    case sent(messageID: Int32)
    /// No connection: libmosquitto kept a QoS ≥ 1 message in its out-queue and sends it after the
    /// next connect (PITFALLS.md: it returns MOSQ_ERR_NO_CONN yet queues).
    case queuedWhileDisconnected(messageID: Int32)
    case failed(MQTTError)
}

/// `mosquitto_lib_init` once per process; a global `let` is initialised exactly once, thread-safely.
private let libraryInitialization: Int32 = mosquitto_lib_init()

/// Owns one `mosquitto *`.
///
/// `@unchecked Sendable`, because: the pointer is a `let`, set in `init` and freed only in
/// `deinit` (when no thread holds the handle any more, the network thread included, since it holds
/// a strong reference while it runs); the option setters in `configure` run before the network
/// thread starts; every other function called here is one libmosquitto documents as callable from
/// several threads once `mosquitto_threaded_set(m, true)` is set (it locks its own mutexes);
/// `handler` is an immutable reference to a `Sendable` object.
final class MosquittoHandle: @unchecked Sendable {
    fileprivate let mosquitto: OpaquePointer
    let handler: any MosquittoEventHandler

    init(clientID: String, cleanSession: Bool, handler: any MosquittoEventHandler) throws(MQTTError) {
        _ = libraryInitialization
        guard let mosquitto = mosquitto_new(clientID, cleanSession, nil) else {
            // mosquitto_new fails with EINVAL (empty id with a persistent session) or ENOMEM.
            throw MQTTError(
                .invalidConfiguration,
                cleanSession
                    ? "libmosquitto could not create a client (out of memory?)"
                    : "a persistent session needs a non-empty client id"
            )
        }
        self.mosquitto = mosquitto
        self.handler = handler
        mosquitto_user_data_set(mosquitto, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_threaded_set(mosquitto, true)
        mosquitto_connect_v5_callback_set(mosquitto, onConnect)
        mosquitto_disconnect_v5_callback_set(mosquitto, onDisconnect)
        mosquitto_publish_v5_callback_set(mosquitto, onPublish)
        mosquitto_message_v5_callback_set(mosquitto, onMessage)
        mosquitto_subscribe_v5_callback_set(mosquitto, onSubscribe)
        mosquitto_unsubscribe_v5_callback_set(mosquitto, onUnsubscribe)
        mosquitto_log_callback_set(mosquitto, onLog)
    }

    deinit {
        mosquitto_destroy(mosquitto)
    }

    /// Protocol version, credentials, TLS and will. Call before the network thread starts.
    func configure(_ options: MQTTConnectionOptions) throws(MQTTError) {
        let version = options.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(mosquitto, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)), "setting the protocol version")
        // Without TCP_NODELAY a small publish waits for the ACK of the previous one, which the
        // broker delays up to 40 ms when it has nothing to send back (QoS 0): presence-bench speed
        // measured every measurement → location round trip at ~43 ms.
        // A Unix socket (port 0) has no Nagle: libmosquitto would only warn that it cannot set it.
        if options.port != 0 {
            try check(mosquitto_int_option(mosquitto, MOSQ_OPT_TCP_NODELAY, 1), "setting TCP_NODELAY")
        }
        if let credentials = options.credentials {
            try check(mosquitto_username_pw_set(mosquitto, credentials.username, credentials.password), "setting credentials")
        }
        if let tls = options.tls {
            guard (tls.certificateFile == nil) == (tls.keyFile == nil) else {
                throw MQTTError(.invalidConfiguration, "TLS needs both a client certificate and its key, or neither")
            }
            try check(
                mosquitto_tls_set(mosquitto, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil),
                "setting up TLS (CA file \(tls.caFile))"
            )
        }
        if let will = options.lastWill {
            try TopicFilter.validateTopicName(will.topic)
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(
                    mosquitto, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue), will.retain
                )
            }
            try check(rc, "setting the last will")
        }
    }

    /// QoS ≥ 1 messages sent before their acknowledgements come back (libmosquitto's default: 20).
    func setInflightWindow(_ count: Int) throws(MQTTError) {
        try check(mosquitto_int_option(mosquitto, MOSQ_OPT_SEND_MAXIMUM, Int32(clamping: count)), "setting the in-flight window")
    }

    /// Opens the socket and queues CONNECT (blocking for DNS and the TCP connect). The CONNACK
    /// arrives later through `mosquitto_loop`.
    /// `sessionExpirySeconds` above 0 goes out as MQTT 5's session expiry interval (only for MQTT 5).
    func connect(host: String, port: Int, keepAliveSeconds: Int, sessionExpirySeconds: UInt32 = 0) -> MQTTError? {
        var properties: OpaquePointer?
        defer { mosquitto_property_free_all(&properties) }
        if sessionExpirySeconds > 0 {
            let rc = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), sessionExpirySeconds)
            guard rc == MOSQ_ERR_SUCCESS.code else { return Self.error(rc, "setting the session expiry interval") }
        }
        let rc = mosquitto_connect_bind_v5(mosquitto, host, Int32(port), Int32(keepAliveSeconds), nil, properties)
        return rc == MOSQ_ERR_SUCCESS.code ? nil : Self.error(rc, "connecting to \(host):\(port)")
    }

    /// One round of network I/O, waiting at most `timeoutMilliseconds` for the socket. Returns
    /// nil while the connection is healthy; the error that ended it otherwise.
    func loop(timeoutMilliseconds: Int32) -> MQTTError? {
        let rc = mosquitto_loop(mosquitto, timeoutMilliseconds, 1)
        return rc == MOSQ_ERR_SUCCESS.code ? nil : Self.error(rc, "network loop")
    }

    func publish(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool) -> MosquittoSendOutcome {
        var messageID: Int32 = 0
        let rc = payload.withUnsafeBytes { bytes in
            mosquitto_publish(
                mosquitto, &messageID, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos.rawValue), retain
            )
        }
        return outcome(rc, messageID: messageID, queues: qos != .atMostOnce, "publishing to \(topic)")
    }

    func subscribe(_ filter: String, qos: MQTTQoS) -> MosquittoSendOutcome {
        var messageID: Int32 = 0
        let rc = mosquitto_subscribe(mosquitto, &messageID, filter, Int32(qos.rawValue))
        return outcome(rc, messageID: messageID, queues: false, "subscribing to \(filter)")
    }

    func unsubscribe(_ filter: String) -> MosquittoSendOutcome {
        var messageID: Int32 = 0
        let rc = mosquitto_unsubscribe(mosquitto, &messageID, filter)
        return outcome(rc, messageID: messageID, queues: false, "unsubscribing from \(filter)")
    }

    /// Queues DISCONNECT behind everything already queued; the network thread writes it and closes
    /// the socket (the broker then discards the will). Returns false when there was no connection.
    @discardableResult
    func disconnect() -> Bool {
        mosquitto_disconnect(mosquitto) == MOSQ_ERR_SUCCESS.code
    }

    // MARK: - Codes

    private func outcome(_ rc: Int32, messageID: Int32, queues: Bool, _ context: String) -> MosquittoSendOutcome {
        switch rc {
        case MOSQ_ERR_SUCCESS.code: return .sent(messageID: messageID)
        case MOSQ_ERR_NO_CONN.code:
            return queues
                ? .queuedWhileDisconnected(messageID: messageID)
                : .failed(MQTTError(.notConnected, "\(context): not connected"))
        default: return .failed(Self.error(rc, context))
        }
    }

    private func check(_ rc: Int32, _ context: String) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.code else { throw Self.error(rc, context) }
    }

    /// A `MOSQ_ERR_*` code as an error whose message is `context: mosquitto_strerror(rc)`.
    static func error(_ rc: Int32, _ context: String) -> MQTTError {
        var text = String(cString: mosquitto_strerror(rc))
        if rc == MOSQ_ERR_ERRNO.code {
            // libmosquitto's text for this code is "see errno"; say what errno says.
            text = String(cString: strerror(errno))
        }
        let code: MQTTError.Code = rc == MOSQ_ERR_NO_CONN.code ? .notConnected : .library(rc)
        return MQTTError(code, "\(context): \(text)")
    }

    /// A refusing CONNACK as an error. `reasonCode` is a 3.1.1 return code (1–5) or an MQTT 5
    /// reason code (≥ 0x80).
    static func connackError(_ reasonCode: Int, protocolVersion: MQTTProtocolVersion) -> MQTTError {
        let text =
            protocolVersion == .v5
            ? String(cString: mosquitto_reason_string(Int32(reasonCode)))
            : String(cString: mosquitto_connack_string(Int32(reasonCode)))
        return MQTTError(.connectionRefused(reasonCode: reasonCode), "broker refused the connection: \(text)")
    }

    /// An MQTT 5 reason code (SUBACK, PUBACK) in words.
    static func reasonText(_ reasonCode: Int) -> String {
        String(cString: mosquitto_reason_string(Int32(reasonCode)))
    }
}

extension mosq_err_t {
    /// The value libmosquitto's functions return as `int`.
    fileprivate var code: Int32 { Int32(rawValue) }
}

// MARK: - Callbacks (network thread, see the file comment)

// Plain functions at file scope, not closures in isolated code: a closure made inside main-actor
// code is inferred main-actor isolated and traps when libmosquitto calls it (PITFALLS.md).

private func handle(_ userData: UnsafeMutableRawPointer?) -> MosquittoHandle? {
    guard let userData else { return nil }
    // Unretained: the network thread holds the handle strongly while it calls mosquitto_loop.
    return Unmanaged<MosquittoHandle>.fromOpaque(userData).takeUnretainedValue()
}

private func onConnect(_: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ rc: Int32, _ flags: Int32, _: OpaquePointer?) {
    guard let handle = handle(userData) else { return }
    // flags are the CONNACK acknowledge flags; bit 0 is "session present".
    handle.handler.didReceiveConnack(handle, reasonCode: Int(rc), sessionPresent: flags & 1 != 0)
    // libmosquitto formats every line (a `vsnprintf` into a fresh buffer) before the callback can
    // drop it: two or three debug lines per message, 7 % of the aggregator's work per message
    // (issue 38). While connected those are all it writes, so the callback is off unless they are
    // read; it is on again at a disconnect, for what connecting may report (TLS errors).
    if rc == 0, !handle.handler.logs(.info) { mosquitto_log_callback_set(handle.mosquitto, nil) }
}

private func onDisconnect(_: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ rc: Int32, _: OpaquePointer?) {
    guard let handle = handle(userData) else { return }
    mosquitto_log_callback_set(handle.mosquitto, onLog)
    handle.handler.didDisconnect(handle, error: rc == 0 ? nil : MosquittoHandle.error(rc, "connection closed"))
}

private func onPublish(_: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ mid: Int32, _ reason: Int32, _: OpaquePointer?) {
    guard let handle = handle(userData) else { return }
    handle.handler.didCompletePublish(handle, messageID: mid, reasonCode: Int(reason))
}

private func onMessage(
    _: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ message: UnsafePointer<mosquitto_message>?, _: OpaquePointer?
) {
    guard let handle = handle(userData), let message, let topic = message.pointee.topic else { return }
    let length = Int(max(0, message.pointee.payloadlen))
    let payload: [UInt8]
    if let bytes = message.pointee.payload, length > 0 {
        payload = Array(UnsafeRawBufferPointer(start: bytes, count: length))
    } else {
        payload = []
    }
    let qos = MQTTQoS(rawValue: UInt8(clamping: message.pointee.qos)) ?? .atMostOnce
    handle.handler.didReceive(
        handle,
        message: MQTTMessage(topic: String(cString: topic), payload: payload, qos: qos, retain: message.pointee.retain)
    )
}

private func onSubscribe(
    _: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ mid: Int32, _ count: Int32, _ granted: UnsafePointer<Int32>?,
    _: OpaquePointer?
) {
    guard let handle = handle(userData) else { return }
    var grantedQoS: [Int] = []
    if let granted, count > 0 {
        grantedQoS = UnsafeBufferPointer(start: granted, count: Int(count)).map { Int($0) }
    }
    handle.handler.didSubscribe(handle, messageID: mid, grantedQoS: grantedQoS)
}

private func onUnsubscribe(_: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ mid: Int32, _: OpaquePointer?) {
    guard let handle = handle(userData) else { return }
    handle.handler.didUnsubscribe(handle, messageID: mid)
}

private func onLog(_: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ level: Int32, _ text: UnsafePointer<CChar>?) {
    guard let handle = handle(userData), let text else { return }
    let mapped: MosquittoLogLevel
    switch level {
    case MOSQ_LOG_ERR: mapped = .error
    case MOSQ_LOG_WARNING: mapped = .warning
    case MOSQ_LOG_NOTICE: mapped = .notice
    case MOSQ_LOG_INFO: mapped = .info
    default: mapped = .debug
    }
    guard handle.handler.logs(mapped) else { return }
    handle.handler.log(handle, level: mapped, message: String(cString: text))
}
