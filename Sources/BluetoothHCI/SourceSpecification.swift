/// Where advertisements come from, as `--source` spells it:
/// `hci0` / `hci:N`, `uart:/dev/ttyACM0[@1000000]`, `btsnoop:FILE`, `simulate[:FILE]`.
public enum SourceSpecification: Hashable, Sendable, CustomStringConvertible {
    /// A BlueZ adapter through a raw HCI socket.
    case hciSocket(deviceID: Int)
    /// An H4 controller on a serial line.
    case uart(UARTTransport.Settings)
    /// A btsnoop capture replayed.
    case btsnoop(path: String)
    /// Synthetic beacons; nil path means the embedded demo building.
    case simulate(scenarioPath: String?)

    public init(parsing text: String) throws(SourceSpecificationError) {
        if text.hasPrefix("hci") {
            var rest = text.dropFirst(3)
            if rest.hasPrefix(":") { rest = rest.dropFirst() }
            guard !rest.isEmpty, rest.count <= 3, rest.allSatisfy(\.isASCII), let id = Int(rest), id >= 0 else {
                throw SourceSpecificationError(text, "an adapter is hci0, hci1, … or hci:N")
            }
            self = .hciSocket(deviceID: id)
        } else if text.hasPrefix("uart:") {
            let spec = text.dropFirst(5)
            var path = String(spec)
            var baud = 1_000_000
            if let at = spec.lastIndex(of: "@") {
                path = String(spec[..<at])
                guard let value = Int(spec[spec.index(after: at)...]), UARTTransport.speedConstant(value) != nil else {
                    throw SourceSpecificationError(text, "'\(spec[spec.index(after: at)...])' is not a supported speed (9600 … 4000000 baud)")
                }
                baud = value
            }
            guard path.hasPrefix("/") else { throw SourceSpecificationError(text, "give the serial device's full path, e.g. uart:/dev/ttyACM0") }
            self = .uart(UARTTransport.Settings(path: path, baudRate: baud))
        } else if text.hasPrefix("btsnoop:") {
            let path = String(text.dropFirst(8))
            guard !path.isEmpty else { throw SourceSpecificationError(text, "name the capture file, e.g. btsnoop:capture.log") }
            self = .btsnoop(path: path)
        } else if text == "simulate" {
            self = .simulate(scenarioPath: nil)
        } else if text.hasPrefix("simulate:") {
            let path = String(text.dropFirst(9))
            guard !path.isEmpty else { throw SourceSpecificationError(text, "name the scenario file, or use plain 'simulate'") }
            self = .simulate(scenarioPath: path)
        } else {
            throw SourceSpecificationError(text, "unknown source; expected hci0, hci:N, uart:/dev/tty…[@baud], btsnoop:FILE or simulate[:FILE]")
        }
    }

    public var description: String {
        switch self {
        case .hciSocket(let id): return "hci\(id)"
        case .uart(let settings): return "uart:\(settings.path)@\(settings.baudRate)"
        case .btsnoop(let path): return "btsnoop:\(path)"
        case .simulate(let path): return path.map { "simulate:\($0)" } ?? "simulate"
        }
    }
}

public struct SourceSpecificationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let text: String
    public let reason: String

    init(_ text: String, _ reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { "--source '\(text)': \(reason)" }
}
