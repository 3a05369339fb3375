import ArgumentParser

/// Scores room decisions on the walking traces against their ground truth.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "evaluate")
}
