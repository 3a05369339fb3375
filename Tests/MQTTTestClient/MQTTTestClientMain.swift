// A tiny client process for tests that need a real, killable MQTT peer (last will on SIGKILL).
@main
struct MQTTTestClientMain {
    static func main() {}
}
