/// Core Location's proximity classes (SEMANTICS.md): `immediate` < 0.5 m, `near` < 3 m, `far`
/// beyond, `unknown` when the beacon was not heard recently or there is no estimate.
public enum Proximity: String, Sendable, Hashable, CaseIterable, Codable {
    case immediate
    case near
    case far
    case unknown
}
