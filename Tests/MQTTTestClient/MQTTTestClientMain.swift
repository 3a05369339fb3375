// A tiny client process for tests that need a real, killable MQTT peer: it connects with a last
// will, publishes "ready" (QoS 1, acknowledged), prints "ready", then blocks until killed.
//
// Usage: mqtt-test-client PORT CLIENT_ID WILL_TOPIC READY_TOPIC
//   The will is "offline", QoS 1, retained.

#if canImport(Glibc)
import Glibc
#endif
import Logging
import MQTTClient

@main
struct MQTTTestClientMain {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 5, let port = Int(arguments[1]) else {
            print("usage: mqtt-test-client PORT CLIENT_ID WILL_TOPIC READY_TOPIC")
            exit(2)
        }
        var logger = Logger(label: "mqtt-test-client")
        logger.logLevel = .warning
        let options = MQTTConnectionOptions(
            port: port,
            clientID: arguments[2],
            keepAliveSeconds: 60,
            lastWill: MQTTLastWill(topic: arguments[3], string: "offline", qos: .atLeastOnce, retain: true)
        )
        do {
            let connection = try MQTTConnection(options: options, logger: logger)
            try await connection.connect(timeout: .seconds(10))
            try await connection.publish(topic: arguments[4], string: "ready", qos: .atLeastOnce).acknowledged()
            print("ready")
            fflush(nil)
            // Keep the connection alive until SIGKILL; the network thread answers keepalives.
            while true { pause() }
        } catch {
            print("error: \(error)")
            exit(1)
        }
    }
}
