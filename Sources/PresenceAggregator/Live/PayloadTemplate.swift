import BeaconCore

/// A discovery payload cut at the beacon's fields: literal JSON text between them. JSON escaping
/// works character by character, so a field escaped on its own gives the bytes the writer gives for
/// the whole string it sits in.
struct PayloadTemplate: Sendable {
    enum Field: Int, Sendable, CaseIterable {
        case id, name, model, serialNumber

        /// A private-use character standing for the field while the template is cut.
        var placeholder: String { String(Character(Unicode.Scalar(0xF0000 + UInt32(rawValue))!)) }
    }

    /// `literals.count == fields.count + 1`: literal, field, literal, …, literal.
    private var literals: [String] = []
    private var fields: [Field] = []
    private var literalLength = 0

    init(_ rendered: String) {
        var literal = ""
        for scalar in rendered.unicodeScalars {
            if scalar.value >= 0xF0000, let field = Field(rawValue: Int(scalar.value - 0xF0000)) {
                literals.append(literal)
                fields.append(field)
                literal = ""
            } else {
                literal.unicodeScalars.append(scalar)
            }
        }
        literals.append(literal)
        literalLength = literals.reduce(0) { $0 + $1.utf8.count }
    }

    func render(id: String, name: String, model: String, serialNumber: String) -> String {
        var out = ""
        out.reserveCapacity(literalLength + 2 * id.utf8.count + name.utf8.count + model.utf8.count + serialNumber.utf8.count + 32)
        for index in fields.indices {
            out += literals[index]
            switch fields[index] {
            case .id: Self.appendEscaped(id, to: &out)
            case .name: Self.appendEscaped(name, to: &out)
            case .model: Self.appendEscaped(model, to: &out)
            case .serialNumber: Self.appendEscaped(serialNumber, to: &out)
            }
        }
        out += literals[literals.count - 1]
        return out
    }

    /// `text` as inside a JSON string literal (`JSONText.quoted` without its quotes).
    private static func appendEscaped(_ text: String, to out: inout String) {
        if JSONText.needsEscape(text) {
            out += JSONText.quoted(text).dropFirst().dropLast()
        } else {
            out += text
        }
    }
}
