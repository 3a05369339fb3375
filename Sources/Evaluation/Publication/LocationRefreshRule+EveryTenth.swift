import PresenceAggregator

extension LocationRefreshRule {
    /// The rule without a ratio or a refresh interval: every change of 0.1 m publishes at once. What the
    /// bench measures the shipped rule's savings against.
    public static let everyTenth = LocationRefreshRule(distanceRatio: 1, refreshInterval: 0)
}
