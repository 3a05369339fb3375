import Testing
import TestSupport
@testable import BeaconCore

@Suite struct ConfigJSONParserTests {
    func parseError(_ text: String) -> String? {
        do {
            _ = try JSONParser.parse(payload(text))
            return nil
        } catch { return error.description }
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(
            payload(#" {"a":[1,-2.5e1,true,false,null],"b":"x\"\\\/\n\u00e9\ud83d\ude00","c":{}} "#))
        guard case .object(let object) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(object.keys == ["a", "b", "c"])
        guard case .array(let elements)? = object["a"] else {
            Issue.record("expected an array")
            return
        }
        #expect(elements.count == 5)
        if case .number(let one) = elements[0] { #expect(one.integer == 1 && one.literal == "1") }
        if case .number(let other) = elements[1] { #expect(other.integer == nil && other.double == -25) }
        #expect(elements[2] == .bool(true) && elements[4] == .null)
        #expect(object["b"] == .string("x\"\\/\n\u{e9}\u{1F600}"))
        #expect(object["c"] == .object(JSONObject()))
    }

    @Test func syntaxErrorsGiveTheByteOffsetAndWhereInTheMessage() {
        #expect(parseError("") == "payload: invalid JSON at byte 0: expected a JSON value, found nothing")
        #expect(parseError(#"{"revision":7,"regions":[{"id":"a",}]}"#) == "regions[0]: invalid JSON at byte 35: expected a key in double quotes")
        #expect(parseError(#"{"a":1}x"#) == "payload: invalid JSON at byte 7: unexpected data after the JSON value")
        #expect(parseError(#"{"a":01}"#) == "a: invalid JSON at byte 6: leading zeros are not allowed in numbers")
        #expect(parseError(#"{"a":tru}"#) == "a: invalid JSON at byte 5: unexpected character 't', expected a value")
        #expect(parseError(#"{"a":"x"#) == "a: invalid JSON at byte 5: string is not terminated")
        #expect(parseError("{\"a\":\"x\ny\"}") == "a: invalid JSON at byte 7: control character 0x0a in string (escape it)")
        #expect(parseError(#"{"a":"\ud800"}"#) == "a: invalid JSON at byte 6: \\u escape holds a lone surrogate")
        #expect(parseError(#"{"a":1e999}"#) == "a: invalid JSON at byte 5: number 1e999 is out of range")
        #expect(parseError(#"{"a":"\q"}"#) == "a: invalid JSON at byte 6: invalid escape \\q")
        #expect(parseError(#"{"a":"\u12x4"}"#) == "a: invalid JSON at byte 6: \\u must be followed by four hex digits")
        #expect(parseError(#"{"a":1,"a":2}"#) == "a: invalid JSON at byte 7: key appears twice")
    }

    @Test func rejectsInvalidUTF8() {
        var bytes = payload(#"{"a":"xx"}"#)
        bytes[6] = 0xC3  // a lead byte followed by an ASCII byte
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "a: invalid JSON at byte 5: string is not valid UTF-8")
        }
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(parseError(deep)?.hasSuffix("nested deeper than 32 levels") == true)
        let fine = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(parseError(fine) == nil)
    }

    @Test func objectsWithManyKeysParseInLinearTime() throws {
        let members = (0..<50_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        guard case .object(let object) = try JSONParser.parse(payload("{\(members)}")) else {
            Issue.record("expected an object")
            return
        }
        #expect(object.count == 50_000)
        #expect(object["k49999"] == .number(JSONNumber(literal: "49999", double: 49999, integer: 49999)))
    }

    /// Seeded random bytes, random JSON-ish text and truncations of valid messages: the parser and
    /// validators answer with a value or an error, never a crash.
    @Test func randomBytesNeverCrash() {
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet = Array(#"{}[]":,-0123456789.eE+truefalsnul\"u "#.utf8) + [0x00, 0x0A, 0xC3, 0xFF, 0xED, 0xA0]
        let valid = payload(
            regionsMessage(#"{"id":"office","uuid":"\#(officeUUID)","major":1,"minor":2,"notifyOnEntry":false}"#))
        var accepted = 0
        for round in 0..<10_000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            case 1:
                bytes = (0..<Int(generator.next() % 64)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            default:
                bytes = Array(valid.prefix(Int(generator.next() % UInt64(valid.count + 1))))
                if !bytes.isEmpty, generator.next() % 2 == 0 {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            if (try? JSONParser.parse(bytes)) != nil { accepted += 1 }
            _ = try? RegionsConfig.parse(bytes)
            _ = try? KnownBeaconsConfig.parse(bytes)
            _ = try? NodeSettings.parse(bytes)
        }
        #expect(accepted > 0)
    }
}

/// A small deterministic generator (Vigna's SplitMix64), so failures reproduce.
typealias SplitMix64 = SeededRandom
