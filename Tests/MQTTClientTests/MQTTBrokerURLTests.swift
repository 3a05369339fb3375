import MQTTClient
import Testing

@Suite struct MQTTBrokerURLTests {
    @Test func parsesWhatOperatorsWrite() {
        #expect(MQTTBrokerURL("mqtt://127.0.0.1:1884") == MQTTBrokerURL(host: "127.0.0.1", port: 1884))
        #expect(MQTTBrokerURL("mqtt://broker.local") == MQTTBrokerURL(host: "broker.local", port: 1883))
        #expect(MQTTBrokerURL("mqtts://broker.local/") == MQTTBrokerURL(host: "broker.local", port: 8883, usesTLS: true))
        #expect(MQTTBrokerURL("mqtt://[::1]:1883") == MQTTBrokerURL(host: "::1", port: 1883))
        #expect(MQTTBrokerURL("mqtt://[::1]:1883")?.description == "mqtt://[::1]:1883")
    }

    @Test func refusesTheRest() {
        for bad in ["", "broker:1883", "http://broker", "mqtt://", "mqtt://:1883", "mqtt://host:0", "mqtt://host:70000",
                    "mqtt://host:port", "mqtt://ho st", "mqtt://user@host"] {
            #expect(MQTTBrokerURL(bad) == nil, "accepted '\(bad)'")
        }
    }

    @Test func readsABrokerOnThisHostThroughItsUnixSocket() {
        let url = MQTTBrokerURL("unix:///run/mosquitto/mosquitto.sock")
        #expect(url == MQTTBrokerURL(unixSocket: "/run/mosquitto/mosquitto.sock"))
        // libmosquitto's convention: the path as host, port 0.
        #expect(url?.host == "/run/mosquitto/mosquitto.sock" && url?.port == 0 && url?.isUnixSocket == true && url?.usesTLS == false)
        #expect(url?.description == "unix:///run/mosquitto/mosquitto.sock")
        // MQTT.js's and Matterbridge's spelling.
        #expect(MQTTBrokerURL("mqtt+unix:///tmp/m.sock") == MQTTBrokerURL(unixSocket: "/tmp/m.sock"))
        #expect(MQTTBrokerURL("mqtt://broker")?.isUnixSocket == false)
    }

    @Test func namesWhatIsWrongWithASocketPath() {
        #expect(MQTTBrokerURL.problem("unix:///run/mosquitto/mosquitto.sock") == nil)
        #expect(MQTTBrokerURL.problem("foo") == "is not \(MQTTBrokerURL.rule)")
        #expect(MQTTBrokerURL.problem("unix://run/mosquitto/mosquitto.sock")
            == "has a bad socket path: the socket's path must be absolute, such as unix:///run/mosquitto/mosquitto.sock (three slashes)")
        #expect(MQTTBrokerURL.problem("unix:///run/mosquitto/") == "has a bad socket path: the path names a directory, not a socket")
        #expect(MQTTBrokerURL.problem("unix://") != nil)
        let long = "/" + String(repeating: "a", count: 107)
        #expect(MQTTBrokerURL.problem("unix://" + long) == "has a bad socket path: the path is 108 bytes; a Unix socket's path takes at most 107")
        #expect(MQTTBrokerURL("unix://" + long.dropLast()) != nil)
        #expect(MQTTBrokerURL("unixx:///tmp/m.sock") == nil)
    }
}
