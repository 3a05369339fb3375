import BeaconCore

extension AgentConfiguration {
    /// `presence-agent calibrate`'s settings from the agent's own: the known beacons' configured
    /// 1 m powers (the pushed list when there is one, as in the agent), the default P₁, and the
    /// beacon asked for by its canonical id or a known device's alias. Every mistake is named.
    public func calibrationSettings(
        beacon text: String?, duration: Double?, pushedBeacons: [KnownBeacon]?
    ) throws(Problems) -> InstallCalibration.Settings {
        var found = problems
        var settings = InstallCalibration.Settings()
        let known = pushedBeacons ?? knownBeacons
        settings.configuredPowers = Dictionary(
            known.compactMap { entry in entry.measuredPower.map { (entry.beacon, $0) } }, uniquingKeysWith: { first, _ in first })
        if let measuredPower {
            if (-127...0).contains(measuredPower) {
                settings.defaultMeasuredPower = measuredPower
            } else {
                found.append(Error("tracking.measuredPower", "\(measuredPower) is not in -127…0 dBm", source: sources["tracking.measuredPower"]))
            }
        }
        if let text {
            if let entry = known.first(where: { $0.alias?.rawValue == text }) {
                settings.beacon = entry.beacon
            } else {
                do {
                    settings.beacon = try BeaconID(parsing: text)
                } catch {
                    found.append(Error("--beacon", "\(error); nor is it a known device's id"))
                }
            }
        }
        if let duration {
            if duration >= 5 && duration <= 3600 {
                settings.duration = duration
            } else {
                found.append(Error("--duration", "\(duration) is not in 5…3600 seconds"))
            }
        }
        guard found.isEmpty else { throw Problems(errors: found) }
        return settings
    }
}
