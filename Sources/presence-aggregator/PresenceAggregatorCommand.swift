import ArgumentParser

@main
struct PresenceAggregatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-aggregator",
        abstract: "Decides which room each beacon is in, from every node's measurements.",
        subcommands: [RunCommand.self, CheckConfigCommand.self, ReplayCommand.self, WatchCommand.self, LearnCommand.self, LabelCommand.self]
    )
}
