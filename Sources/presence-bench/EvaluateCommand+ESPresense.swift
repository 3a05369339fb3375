import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions

extension EvaluateCommand {
    static let espresenseModeName = "ESPresense nodes (their filter and report schedule) through the aggregator's ESPresense source"

    /// The recordings replayed as ESPresense nodes would have reported them: each (beacon, node)
    /// through `ESPresenseNodeModel`, each report rendered as the firmware's JSON and read by the
    /// aggregator's own `ESPresenseSource` (ids, rooms, evidence scale, silence timeout), then the
    /// same room decision as our agents' measurements get.
    static func espresenseMode(_ site: Site, parameters: RoomDecisionParameters) -> ModeReport {
        ModeReport(recordings: site.recordings.map { RecordingResult(name: $0.name, score: espresenseScore($0, parameters: parameters)) },
                   name: espresenseModeName)
    }

    static func espresenseScore(_ set: TraceSet, parameters: RoomDecisionParameters) -> RoomDecisionScore {
        let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
        var deviceOf: [BeaconID: String] = [:]
        var traceBeaconOf: [BeaconID: BeaconID] = [:]
        var known: [KnownBeacon] = []
        var rooms: [String: String] = [:]
        for sample in set.samples {
            rooms[sample.node.lowercased()] = sample.room
            guard deviceOf[sample.beacon] == nil else { continue }
            let minor = deviceOf.count + 1
            deviceOf[sample.beacon] = "iBeacon:\(uuid)-1-\(minor)"
            let canonical = BeaconID(rawValue: "ibeacon-\(uuid)-1-\(minor)")
            traceBeaconOf[canonical] = sample.beacon
            known.append(KnownBeacon(beacon: canonical))
        }
        var source = ESPresenseSource(settings: ESPresenseSettings(topic: "espresense", rooms: rooms), followUnknown: false,
                                      pathLossExponent: parameters.pathLossExponent, known: ForeignKnownBeacons(known))
        var decider = RoomDecider(parameters: parameters)
        var nodes: [String: ESPresenseNodeModel] = [:]
        var rows: [(time: Instant, decision: RoomDecision)] = []
        var nextTick = set.samples.first.map { $0.time.seconds.rounded(.down) + 1 } ?? 0

        func feed(_ inputs: [ForeignNodeInput], at time: Instant) {
            for case .measurement(let measurement) in inputs {
                if let decision = decider.update(measurement.evidence, at: time) { rows.append((time, decision)) }
            }
        }
        for sample in set.samples {
            while nextTick <= sample.time.seconds {
                let time = Instant(seconds: nextTick)
                feed(source.tick(at: time), at: time)
                for decision in decider.tick(at: time) { rows.append((time, decision)) }
                nextTick += 1
            }
            let node = sample.node.lowercased()
            let key = sample.beacon.rawValue + "\u{0}" + node
            let rssiAt1m = Double(sample.measuredPower ?? -59)
            guard let report = nodes[key, default: ESPresenseNodeModel()].heard(
                rssi: Double(sample.rssi), at: sample.time.seconds * 1000, rssiAt1m: rssiAt1m),
                let device = deviceOf[sample.beacon]
            else { continue }
            // The firmware's JSON, as BleFingerprint::fill writes it.
            let payload = #"{"mac":"c4a1b2c3d4e5","id":"\#(device)","rssi@1m":\#(Int(rssiAt1m)),"rssi":\#(String(format: "%.2f", report.rssi)),"rxAdj":0,"rssiVar":\#(String(format: "%.2f", report.rssiVariance)),"distance":\#(String(format: "%.2f", report.distance)),"var":0.00,"int":100}"#
            if case .used(let inputs) = source.receive(topic: "espresense/devices/\(device)/\(node)", payload: Array(payload.utf8), at: sample.time) {
                feed(inputs, at: sample.time)
            }
        }
        return perBeacon(set) { beacon in
            rows.filter { traceBeaconOf[$0.decision.beacon] == beacon }.map { ($0.time, $0.decision.room) }
        }
    }
}
