/// Core Location's proximity classes (docs/Semantics.md): `immediate` < 0.5 m, `near` < 3 m, `far`
/// beyond, `unknown` when the beacon was not heard recently or there is no estimate.
public enum Proximity: String, Sendable, Hashable, CaseIterable, Codable {
    /// Closer than 0.5 m (by default).
    case immediate
    /// From 0.5 m to 3 m (by default).
    case near
    /// Beyond 3 m (by default).
    case far
    /// Not heard recently, or no distance to judge by.
    case unknown
}
