import PresenceAggregator

extension LocationRefreshRule {
    /// The rule before issue 38's sixth round: every change of 0.1 m publishes at once. What the
    /// bench measures the shipped rule's savings against.
    public static let everyTenth = LocationRefreshRule(distanceRatio: 1, refreshInterval: 0)
}
