import Logging

/// libmosquitto's callbacks, on the network thread (`MosquittoHandle`'s file comment).
extension MQTTConnectionCore {
    func didReceiveConnack(_ handle: MosquittoHandle, reasonCode: Int, sessionPresent: Bool) {
        guard reasonCode == 0 else {
            let error = MosquittoHandle.connackError(reasonCode, protocolVersion: options.protocolVersion)
            state.withLock { $0.lastRefusal = error }
            logger.error("MQTT broker refused the connection", metadata: ["error": "\(error.message)"])
            return
        }
        let (filters, isReconnect) = state.withLock { state in
            state.connackAccepted = true
            if !state.stopRequested { state.phase = .connected }
            state.flushingOutbox = !state.outbox.isEmpty
            state.acceptedConnections += 1
            var strongest: [String: MQTTQoS] = [:]
            for entry in state.subscriptions.values {
                strongest[entry.filter.rawValue] = max(strongest[entry.filter.rawValue] ?? entry.qos, entry.qos)
            }
            return (strongest, state.acceptedConnections > 1)
        }
        // Sent from this callback, so they are queued before libmosquitto resends the messages
        // that waited for the connection: a message to a topic we subscribe to is not missed.
        for (filter, qos) in filters.sorted(by: { $0.key < $1.key }) {
            switch handle.subscribe(filter, qos: qos) {
            case .sent(let messageID), .queuedWhileDisconnected(let messageID):
                _ = state.withLock { $0.claim(messageID, as: .ignore("resubscribe \(filter)")) }
            case .failed(let error):
                logger.error("MQTT re-subscription failed", metadata: ["filter": "\(filter)", "error": "\(error.message)"])
            }
        }
        // Then what waited for the connection, behind the SUBSCRIBEs.
        flushOutbox(handle)
        logger.info(
            "MQTT connected",
            metadata: [
                "broker": "\(options.host):\(options.port)", "sessionPresent": "\(sessionPresent)",
                "resubscribed": "\(filters.count)",
            ])
        firstConnection.complete(.success(()))
        emit(.connected(sessionPresent: sessionPresent, isReconnect: isReconnect))
    }

    func didDisconnect(_ handle: MosquittoHandle, error: MQTTError?) {
        logger.debug("MQTT socket closed", metadata: ["error": "\(error?.message ?? "none")"])
    }

    func didCompletePublish(_ handle: MosquittoHandle, messageID: Int32, reasonCode: Int) {
        let (entry, waiters): (AckEntry?, [PendingResult<Void>]) = state.withLock { state in
            let entry = state.report(messageID, .publish(reasonCode: reasonCode))
            guard case .publish? = entry else { return (entry, []) }
            return (entry, state.releasePending())
        }
        if case .publish(let result)? = entry {
            result.complete(Self.publishResult(reasonCode))
        }
        for waiter in waiters { waiter.complete(.success(())) }
    }

    func didReceive(_ handle: MosquittoHandle, message: MQTTMessage) {
        let routes = state.withLock { state in
            state.receivedMessages += 1
            return state.routes
        }
        for index in routes.indices where routes[index].filter.matches(message.topic) {
            routes[index].delivery.deliver(message)
        }
    }

    func didSubscribe(_ handle: MosquittoHandle, messageID: Int32, grantedQoS: [Int]) {
        let entry = state.withLock { $0.report(messageID, .subscribe(grantedQoS: grantedQoS)) }
        switch entry {
        case .subscribe(let result)?:
            result.complete(.success(grantedQoS))
        case .ignore(let what)?:
            if let code = grantedQoS.first, code >= 0x80 {
                logger.error(
                    "MQTT broker refused a re-subscription",
                    metadata: ["what": "\(what)", "reason": "\(MosquittoHandle.reasonText(code))"])
            }
        default:
            break
        }
    }

    func didUnsubscribe(_ handle: MosquittoHandle, messageID: Int32) {
        if case .unsubscribe(let result)? = state.withLock({ $0.report(messageID, .unsubscribe) }) {
            result.complete(.success(()))
        }
    }

    func logs(_ level: MosquittoLogLevel) -> Bool {
        switch level {
        case .error, .warning: true
        case .notice, .info: logger.logLevel <= .debug
        case .debug: logger.logLevel <= .trace
        }
    }

    func log(_ handle: MosquittoHandle, level: MosquittoLogLevel, message: String) {
        switch level {
        case .error:
            state.withLock { $0.lastLibraryError = message }
            logger.error("libmosquitto", metadata: ["message": "\(message)"])
        case .warning: logger.warning("libmosquitto", metadata: ["message": "\(message)"])
        case .notice, .info: logger.debug("libmosquitto", metadata: ["message": "\(message)"])
        case .debug: logger.trace("libmosquitto", metadata: ["message": "\(message)"])
        }
    }
}
