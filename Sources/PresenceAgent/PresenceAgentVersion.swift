/// The version both programs report (`info` topic, Home Assistant `origin`).
public enum PresenceAgentVersion {
    public static let current = "0.1.0"
}
