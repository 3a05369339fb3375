import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import RoomDecisions

/// Prints issue 40's table of a tag's signal (`SignalFigures`) for directories of recordings, as
/// recorded or worn (`--worn-tag`), beside the held-back house's figures: the check that the
/// simulated worn tag is calibrated.
struct SignalFiguresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal-figures",
        abstract: "Prints how a tag's signal behaves while its wearer stays in a room (issue 40's table) for directories of recordings; prints one JSON object."
    )

    @Argument(help: "Directories of NAME.trace.csv + NAME.truth.csv pairs; each is one column.")
    var directories: [String]

    @Flag(help: "Wear the tag first (WornTagSignal, as evaluate --worn-tag).")
    var wornTag = false

    @OptionGroup var model: WornTagOptions

    @Option(help: ArgumentHelp("Worn tag: pool this many draws of each recording (the first seeded by its name, the others by its name and #k), so the figures do not hang on one draw.", visibility: .hidden))
    var wornDraws = 1

    @Flag(help: ArgumentHelp("Also one column per recording (and draw), DIR/NAME#k: can a beacon's own signal tell worn from not, recording by recording?", visibility: .hidden))
    var perRecording = false

    func run() throws {
        var columns: [String: SignalFigures] = [:]
        var every: [SignalFigures.Recording] = []
        let worn = model.signal()
        for directory in directories {
            let name = URL(fileURLWithPath: directory).standardizedFileURL.lastPathComponent
            let recordings = try EvaluateCommand.loadTraces(directory: directory).flatMap { set in
                (0..<(wornTag ? max(1, wornDraws) : 1)).map { draw in
                    let recording = SignalFigures.Recording(
                        samples: wornTag ? worn.apply(to: set.samples, truth: set.truth,
                                                      name: draw == 0 ? set.name : "\(set.name)#\(draw)") : set.samples,
                        truth: set.truth)
                    if perRecording { columns["\(name)/\(set.name)#\(draw)"] = SignalFigures([recording]) }
                    return recording
                }
            }
            columns[name] = SignalFigures(recordings)
            every += recordings
        }
        // Several directories: their recordings pooled too.
        if directories.count > 1 { columns["all"] = SignalFigures(every) }
        let report = Report(wornTag: wornTag ? .init(worn.parameters) : nil, house: Self.house,
                            columns: columns.mapValues(Column.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    /// The held-back house, tag worn on the wrist (issue 40's table).
    static let house = Column(
        packetsPerSecondPerReceiver: 2.1, invertedShare: 0.115,
        episodesPerHour: 48, episodeLength: [3, 27, 51], episodesAtLeast3s6s10sPerHour: [25, 19, 13],
        episodesOf3sMeansPerHour: 24, episodeOf3sMeansLength: [6, 52],
        ownRoomSilentPerHour: 24, ownRoomSilentLength: [2.6, 5.0], inRoomSeconds: nil)

    struct Report: Encodable {
        var wornTag: WornTagReport?
        var house: Column
        var columns: [String: Column]
    }

    /// One column of the table, rounded as the issue gives it.
    struct Column: Encodable {
        var packetsPerSecondPerReceiver: Double
        var invertedShare: Double
        var episodesPerHour: Double
        /// Median, p90, p99 seconds.
        var episodeLength: [Double]
        var episodesAtLeast3s6s10sPerHour: [Double]
        var episodesOf3sMeansPerHour: Double
        /// Median, p90 seconds.
        var episodeOf3sMeansLength: [Double]
        var ownRoomSilentPerHour: Double
        /// Median, p90 seconds.
        var ownRoomSilentLength: [Double]
        var inRoomSeconds: Int?
    }
}

extension SignalFiguresCommand.Column {
    init(_ figures: SignalFigures) {
        func round(_ value: Double, _ places: Double) -> Double { (value * places).rounded() / places }
        packetsPerSecondPerReceiver = round(figures.packetsPerSecondPerReceiver, 10)
        invertedShare = round(figures.invertedShare, 1000)
        episodesPerHour = round(figures.episodes.perHour, 1)
        episodeLength = figures.episodes.length.map { round($0, 10) }
        episodesAtLeast3s6s10sPerHour = figures.episodes.atLeast3s6s10sPerHour.map { round($0, 1) }
        episodesOf3sMeansPerHour = round(figures.episodesOf3sMeans.perHour, 1)
        episodeOf3sMeansLength = figures.episodesOf3sMeans.length.prefix(2).map { round($0, 10) }
        ownRoomSilentPerHour = round(figures.ownRoomSilentPerHour, 1)
        ownRoomSilentLength = figures.ownRoomSilentLength.map { round($0, 10) }
        inRoomSeconds = figures.inRoomSeconds
    }
}

/// The worn tag's settings as flags (defaults: `WornTagSignal.Parameters`), for checking how the
/// calibration moves.
struct WornTagOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Worn tag: chance a receiver hears a packet.", visibility: .hidden))
    var wornHeard: Double?
    @Option(help: ArgumentHelp("Worn tag: per-packet noise, dB.", visibility: .hidden))
    var wornNoise: Double?
    @Option(help: ArgumentHelp("Worn tag: level window, s.", visibility: .hidden))
    var wornLevelWindow: Double?
    @Option(help: ArgumentHelp("Worn tag: mean still spell, s.", visibility: .hidden))
    var wornStillSpell: Double?
    @Option(help: ArgumentHelp("Worn tag: shadow depth low end, dB.", visibility: .hidden))
    var wornDepthLow: Double?
    @Option(help: ArgumentHelp("Worn tag: shadow depth high end, dB.", visibility: .hidden))
    var wornDepthHigh: Double?
    @Option(help: ArgumentHelp("Worn tag: shadow half-angle, degrees.", visibility: .hidden))
    var wornCone: Double?
    @Option(help: ArgumentHelp("Worn tag: a receiver's shortest gap between two packets, s.", visibility: .hidden))
    var wornReportGap: Double?
    @Option(help: ArgumentHelp("Worn tag: wall loss, dB.", visibility: .hidden))
    var wornWall: Double?
    @Option(help: ArgumentHelp("Worn tag: walking before a change, s.", visibility: .hidden))
    var wornWalkBefore: Double?
    @Option(help: ArgumentHelp("Worn tag: walking after a change, s.", visibility: .hidden))
    var wornWalkAfter: Double?
    @Option(help: ArgumentHelp("Worn tag: floor quantile.", visibility: .hidden))
    var wornFloorQuantile: Double?
    @Option(help: ArgumentHelp("Worn tag: floor band, dB.", visibility: .hidden))
    var wornFloorBand: Double?

    @Option(help: ArgumentHelp("Worn tag: the cone's share over which the shadow eases.", visibility: .hidden))
    var wornTaper: Double?
    @Option(help: ArgumentHelp("Worn tag: chance a still spell ends in a new heading.", visibility: .hidden))
    var wornNewHeading: Double?
    @Option(help: ArgumentHelp("Worn tag: SD of a shift in the seat, degrees.", visibility: .hidden))
    var wornShift: Double?
    @Option(help: ArgumentHelp("Worn tag: a receiver's mean deaf spell, s (0: never).", visibility: .hidden))
    var wornDeafSpell: Double?
    @Option(help: ArgumentHelp("Worn tag: a receiver's mean hearing spell, s.", visibility: .hidden))
    var wornHearingSpell: Double?

    func signal() -> WornTagSignal {
        var p = WornTagSignal.Parameters()
        if let wornHeard { p.heard = wornHeard }
        if let wornNoise { p.noise = wornNoise }
        if let wornLevelWindow { p.levelWindow = wornLevelWindow }
        if let wornStillSpell { p.stillSpell = wornStillSpell }
        if wornDepthLow != nil || wornDepthHigh != nil {
            let low = wornDepthLow ?? p.depth.lowerBound
            p.depth = low...max(low, wornDepthHigh ?? p.depth.upperBound)
        }
        if let wornCone { p.cone = wornCone * Double.pi / 180 }
        if let wornWall { p.wall = wornWall }
        if let wornReportGap { p.reportGap = wornReportGap }
        if let wornWalkBefore { p.walkBefore = wornWalkBefore }
        if let wornWalkAfter { p.walkAfter = wornWalkAfter }
        if let wornFloorQuantile { p.floorQuantile = wornFloorQuantile }
        if let wornFloorBand { p.floorBand = wornFloorBand }
        if let wornTaper { p.taper = wornTaper }
        if let wornNewHeading { p.newHeading = wornNewHeading }
        if let wornShift { p.shift = wornShift * Double.pi / 180 }
        if let wornDeafSpell { p.deafSpell = wornDeafSpell }
        if let wornHearingSpell { p.hearingSpell = wornHearingSpell }
        return WornTagSignal(parameters: p)
    }
}

/// What a worn tag was made with, in the reports.
struct WornTagReport: Encodable {
    var interval, heard, reportGap, levelWindow, noise, stillSpell, walkBefore, walkAfter, coneDegrees, wall, floorQuantile, floorBand: Double
    var depth: [Double]
    var taper, newHeading, shiftDegrees, deafSpell, hearingSpell: Double
    init(_ p: WornTagSignal.Parameters) {
        taper = p.taper; newHeading = p.newHeading; shiftDegrees = (p.shift * 180 / Double.pi).rounded()
        deafSpell = p.deafSpell; hearingSpell = p.hearingSpell
        interval = p.interval; heard = p.heard; reportGap = p.reportGap; levelWindow = p.levelWindow; noise = p.noise; stillSpell = p.stillSpell
        walkBefore = p.walkBefore; walkAfter = p.walkAfter; coneDegrees = (p.cone * 180 / Double.pi).rounded()
        wall = p.wall
        floorQuantile = p.floorQuantile; floorBand = p.floorBand
        depth = [p.depth.lowerBound, p.depth.upperBound]
    }
}
