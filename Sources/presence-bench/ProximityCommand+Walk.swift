import BeaconCore
import BluetoothHCI
import Evaluation

/// A walk (issue 54): the demo building's simulated people, each heard by every node while they
/// walk between rooms and stay 20–60 s, with the true distance from the simulator's positions.
/// The closest the proximity score has to a carried beacon whose true distance is known at every
/// sample; the calibration is the simulator's own radio (n 2.7, P₁ each person's measured power),
/// so what is lost is lost to the filter and the hold, not to the calibration (a wall's 6 dB
/// still reads farther, as it would in a house).
extension ProximityCommand {
    /// One series per (node, person) of `SimulationScenario.demo` over `seconds` of simulated time.
    static func demoWalk(seconds: Double = 3600) -> [ProximitySeries] {
        let scenario = SimulationScenario.demo
        let start = Instant(seconds: 1_800_000_000)
        return scenario.nodes.flatMap { node -> [ProximitySeries] in
            let simulator = BeaconSimulator(scenario: scenario, node: node)
            let heard = simulator.advertisements(from: start, to: start + seconds)
            return scenario.people.enumerated().map { index, person in
                let adverts = heard.filter { $0.person == person.name }
                let distances = adverts.map { advert -> Double in
                    let at = simulator.position(person: index, at: advert.time)
                    return max(((at.x - node.x) * (at.x - node.x) + (at.y - node.y) * (at.y - node.y)).squareRoot(), 0.1)
                }
                return ProximitySeries(
                    name: "\(node.id) hears \(person.name)", group: person.name, receiver: node.id,
                    times: adverts.map { $0.time.seconds - start.seconds }, rssi: adverts.map { Double($0.rssi) },
                    trueDistances: distances, measuredPower: Double(person.measuredPower), exponent: scenario.pathLossExponent,
                    calibrationResidual: scenario.noiseSigma)
            }
        }
    }
}
