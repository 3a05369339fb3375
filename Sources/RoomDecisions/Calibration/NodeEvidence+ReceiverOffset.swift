#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension NodeEvidence {
    /// This measurement as a receiver reading `offset` dB less would have made it (`NodeOffset.offset`):
    /// every level lowered by `offset`, the distance lengthened as the node's path-loss exponent
    /// `pathLossExponent` says, so the room decision's score moves by the offset too. A
    /// non-finite offset leaves it as it is.
    public func correctedForReceiverOffset(_ offset: Double, pathLossExponent: Double) -> NodeEvidence {
        guard offset.isFinite, offset != 0 else { return self }
        var corrected = self
        corrected.rssiFiltered -= offset
        corrected.rssi = rssi.map { $0 - offset }
        if let distance, pathLossExponent.isFinite, pathLossExponent > 0 {
            corrected.distance = distance * pow(10, offset / (10 * pathLossExponent))
        }
        return corrected
    }
}
