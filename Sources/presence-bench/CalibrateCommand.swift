import ArgumentParser
import BeaconCore
import Evaluation
import Foundation

/// Chooses the tracking defaults (Kalman q and r, silence, path-loss exponent and P₁, hysteresis,
/// publish step under the at-rest budget) from the recordings in data/ and prints every figure as one JSON
/// object. `--at-rest-step` instead measures one candidate publish policy on the still beacons. The rules live in
/// `TrackingCalibration.run`; this command only reads the files.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measures the tracking defaults on recorded data and prints the figures as JSON."
    )

    @Option(help: "The shared data directory (static-rssi/, traces/, rssi-vs-distance/).")
    var data: String = "data"

    @Option(help: "Only measure the at-rest publish rate of this step floor (dB) with the other defaults, and print it.")
    var atRestStep: Double?

    @Option(help: "With --at-rest-step: the σ multiple k.")
    var sigmaMultiple: Double?

    @Option(help: "With --at-rest-step: the step while moving, dB.")
    var movingStep: Double?

    @Option(help: "With --at-rest-step: how long a step publish keeps the moving step, seconds.")
    var movingFor: Double?

    func run() throws {
        let inputs = try Self.loadInputs(dataDirectory: data)
        if let atRestStep {
            var parameters = TrackingParameters.default
            parameters.publish.rssiStep = atRestStep
            if let sigmaMultiple { parameters.publish.sigmaMultiple = sigmaMultiple }
            if let movingStep { parameters.publish.movingStep = movingStep }
            if let movingFor { parameters.publish.movingFor = movingFor }
            let rates = inputs.staticSeries.map { TrackingCalibration.stillPublishesPerMinute($0.series, parameters: parameters) }
            print("median \(TrackingCalibration.median(rates)) p90 \(TrackingCalibration.quantile(rates, 0.9)) "
                  + "mean \(TrackingCalibration.mean(rates)) max \(rates.max() ?? .nan)")
            return
        }
        let report = TrackingCalibration.run(inputs)
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let object = rounded(try JSONSerialization.jsonObject(with: try encoder.encode(report)))
        let json = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        FileHandle.standardOutput.write(json)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    struct MissingData: Error, CustomStringConvertible {
        var path: String
        var description: String { "calibration data missing or unreadable: \(path)" }
    }

    static func read(_ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw MissingData(path: path) }
        return text
    }

    static func files(in directory: String, suffix: String) throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw MissingData(path: directory)
        }
        return names.filter { $0.hasSuffix(suffix) }.sorted()
    }

    static func loadInputs(dataDirectory: String) throws -> TrackingCalibration.Inputs {
        let staticDirectory = dataDirectory + "/static-rssi"
        let distances = TrackingCalibration.parseStaticDistances(try read(staticDirectory + "/DISTANCES.csv"))
        guard !distances.isEmpty else { throw MissingData(path: staticDirectory + "/DISTANCES.csv") }
        let statics = try distances.map { entry in
            (series: TrackingCalibration.parseStaticSeries(try read(staticDirectory + "/" + entry.file)),
             receiver: entry.receiver, distance: entry.distance)
        }
        let traceDirectory = dataDirectory + "/traces"
        let walking = try files(in: traceDirectory, suffix: ".trace.csv").flatMap {
            TrackingCalibration.parseTraceSeries(try read(traceDirectory + "/" + $0))
        }
        let heraldDirectory = dataDirectory + "/rssi-vs-distance"
        let herald = try files(in: heraldDirectory, suffix: ".csv").filter { $0.hasPrefix("herald-2") }.map { name in
            let parsed = TrackingCalibration.parseHerald(try read(heraldDirectory + "/" + name))
            return (name: name, times: parsed.times, rssi: parsed.rssi, distances: parsed.distances)
        }
        guard !walking.isEmpty else { throw MissingData(path: traceDirectory) }
        guard !herald.isEmpty else { throw MissingData(path: heraldDirectory) }
        return .init(staticSeries: statics, walkingSeries: walking, herald: herald)
    }
}

/// Every non-integral number rounded to 4 decimals, so the output is stable and readable.
private func rounded(_ value: Any) -> Any {
    switch value {
    case let dictionary as [String: Any]: return dictionary.mapValues(rounded)
    case let array as [Any]: return array.map(rounded)
    case let number as NSNumber where number.doubleValue != number.doubleValue.rounded():
        return (number.doubleValue * 10_000).rounded() / 10_000
    default: return value
    }
}
