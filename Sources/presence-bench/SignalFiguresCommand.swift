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

    @OptionGroup(title: "Worn tag model (with --worn-tag)") var model: WornTagOptions

    @Option(help: "With --worn-tag: pool this many draws of each recording (the first seeded by its name, the others by its name and #k), so the figures do not hang on one draw.")
    var wornDraws = 1

    @Flag(help: "Also one column per recording (and draw), DIR/NAME#k: to see whether a beacon's own signal tells worn from carried, recording by recording.")
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

/// The worn tag's settings as flags (defaults: `WornTagSignal.Parameters`, printed in the report's
/// `wornTag`), for checking how the simulated tag's calibration against the real house moves: the
/// worn tag model's section of the Room decisions article.
struct WornTagOptions: ParsableArguments {
    @Option(help: "Chance a receiver hears a packet (default \(Self.defaults.heard)).")
    var wornHeard: Double?
    @Option(help: "Per-packet noise, dB (default \(Self.defaults.noise)).")
    var wornNoise: Double?
    @Option(help: "How far from a packet a receiver's recorded adverts make its level, s (default \(Self.defaults.levelWindow)).")
    var wornLevelWindow: Double?
    @Option(help: "A still spell's mean length, s (default \(Self.defaults.stillSpell)).")
    var wornStillSpell: Double?
    @Option(help: "The body's shadow on a receiver right behind the wearer, low end of its draw, dB (default \(Self.defaults.depth.lowerBound)).")
    var wornDepthLow: Double?
    @Option(help: "The body's shadow, high end of its draw, dB (default \(Self.defaults.depth.upperBound)).")
    var wornDepthHigh: Double?
    @Option(help: "Shadow half-angle, degrees (default \(Self.degrees(Self.defaults.cone))).")
    var wornCone: Double?
    @Option(help: "A receiver's shortest gap between two packets, s (default \(Self.defaults.reportGap)).")
    var wornReportGap: Double?
    @Option(help: "A wall's loss to a receiver of another room than the wearer's, dB (default \(Self.defaults.wall)).")
    var wornWall: Double?
    @Option(help: "Walking spans a true room change from this long before it, s (default \(Self.defaults.walkBefore)).")
    var wornWalkBefore: Double?
    @Option(help: "Walking spans a true room change until this long after it, s (default \(Self.defaults.walkAfter)).")
    var wornWalkAfter: Double?
    @Option(help: "The recording's RSSI floor: this quantile of its adverts' RSSI (default \(Self.defaults.floorQuantile)).")
    var wornFloorQuantile: Double?
    @Option(help: "Above the floor, a packet is heard with a chance rising over this many dB (default \(Self.defaults.floorBand)).")
    var wornFloorBand: Double?

    @Option(help: "The cone's share over which the shadow eases (default \(Self.defaults.taper)).")
    var wornTaper: Double?
    @Option(help: "Chance a still spell ends in a new heading (default \(Self.defaults.newHeading)).")
    var wornNewHeading: Double?
    @Option(help: "SD of a shift in the seat, degrees (default \(Self.degrees(Self.defaults.shift))).")
    var wornShift: Double?
    @Option(help: "A receiver's mean deaf spell, s; 0: never deaf (default \(Self.defaults.deafSpell)).")
    var wornDeafSpell: Double?
    @Option(help: "A receiver's mean hearing spell, s (default \(Self.defaults.hearingSpell)).")
    var wornHearingSpell: Double?

    /// The model's defaults, named in the help.
    static let defaults = WornTagSignal.Parameters()
    static func degrees(_ radians: Double) -> Double { (radians * 180 / Double.pi).rounded() }

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
