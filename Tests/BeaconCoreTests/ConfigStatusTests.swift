import Testing
@testable import BeaconCore

@Suite struct ConfigStatusTests {
    let appliedAt = Instant(seconds: 1_795_335_302.123)  // 2026-11-22T08:15:02.123Z

    @Test func okAnswerAsMQTTmdShowsIt() {
        let status = ConfigStatus.applied(
            topic: "presence/config/regions", revision: 7, count: ("regions", 12), at: appliedAt)
        #expect(
            status.jsonText
                == #"{"status":"ok","topic":"presence/config/regions","revision":7,"regions":12,"appliedAt":"2026-11-22T08:15:02.123Z"}"#)
        let node = ConfigStatus.applied(topic: "presence/nodes/kitchen-1/config", revision: 2, count: nil, at: appliedAt)
        #expect(
            node.jsonText
                == #"{"status":"ok","topic":"presence/nodes/kitchen-1/config","revision":2,"appliedAt":"2026-11-22T08:15:02.123Z"}"#)
    }

    @Test func errorAnswerAsMQTTmdShowsIt() {
        let text = regionsMessage(
            #"{"id":"a","uuid":"\#(officeUUID)"},{"id":"b","uuid":"\#(officeUUID)"},{"id":"c","uuid":"abc"}"#, revision: 8)
        do {
            _ = try RegionsConfig.parse(payload(text))
            Issue.record("expected an error")
        } catch {
            let status = ConfigStatus.rejected(topic: "presence/config/regions", error: error, keptRevision: 7)
            #expect(
                status.jsonText
                    == #"{"status":"error","topic":"presence/config/regions","revision":8,"error":"regions[2].uuid: 'abc' is not a UUID","keptRevision":7}"#)
        }
    }

    @Test func unknownRevisionsAreLeftOutAndErrorsAreEscaped() {
        let error = ConfigError(.invalidValue, path: FieldPath.root.appending("a\"b"), message: "bad \\ value\n\u{1}")
        let status = ConfigStatus.rejected(topic: "hq/presence/config/beacons", error: error, keptRevision: nil)
        #expect(
            status.jsonText
                == #"{"status":"error","topic":"hq/presence/config/beacons","error":"a\"b: bad \\ value\n\u0001"}"#)
        // The answer is itself valid JSON that reads back to the same text.
        guard case .object(let object) = try? JSONParser.parse(payload(status.jsonText)) else {
            Issue.record("status is not JSON")
            return
        }
        #expect(object["error"] == .string("a\"b: bad \\ value\n\u{1}"))
    }

    @Test func clearedAnswer() {
        #expect(
            ConfigStatus.cleared(topic: "presence/config/regions", at: appliedAt).jsonText
                == #"{"status":"ok","topic":"presence/config/regions","cleared":true,"appliedAt":"2026-11-22T08:15:02.123Z"}"#)
    }

    @Test func jsonTextNumbers() {
        #expect(JSONText.number(30) == "30")
        #expect(JSONText.number(-2.5) == "-2.5")
        #expect(JSONText.number(.nan) == "null")
    }
}
