import ArgumentParser

/// Measures the project's claims: calibration of the tracking defaults on recorded data,
/// room-decision quality on walking traces, and speed figures.
@main
struct PresenceBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-bench",
        abstract: "Prints the project's measured figures as JSON.",
        subcommands: [CalibrateCommand.self, ProximityCommand.self, EvaluateCommand.self, SpeedCommand.self, FleetCommand.self, ServiceCostCommand.self, LocationPublicationsCommand.self]
    )
}
