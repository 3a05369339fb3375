import ArgumentParser

/// Chooses the tracking defaults (Kalman q and r, path-loss exponent, thresholds) from shared/data.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "calibrate")
}
