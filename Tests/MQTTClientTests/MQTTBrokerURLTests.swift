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
}
