import Testing
@testable import BeaconCore

@Suite struct ConfigRegionsTests {
    @Test func acceptsAValidMessageWithDefaults() throws {
        let text = regionsMessage(
            """
            {"id":"office","uuid":"\(officeUUID)","major":1,"minor":2,"notifyOnEntry":false},
            {"id":"floor-1","uuid":"FDA50693A4E24FB1AFCFC6EB07647825","major":1},
            {"id":"site","uuid":"\(officeUUID)","notifyOnExit":false}
            """)
        guard case .replaced(let config) = try RegionsConfig.parse(payload(text)) else {
            Issue.record("expected regions")
            return
        }
        #expect(config.revision == 7)
        #expect(config.regions.map(\.id.rawValue) == ["office", "floor-1", "site"])
        let office = config.regions[0]
        #expect(office.uuid.description == officeUUID)
        #expect(office.major == 1 && office.minor == 2)
        #expect(office.notifyOnEntry == false && office.notifyOnExit == true)
        #expect(config.regions[1].uuid == office.uuid)
        #expect(config.regions[1].minor == nil)
        #expect(config.regions[2].major == nil && config.regions[2].notifyOnExit == false)
    }

    @Test func emptyPayloadClears() throws {
        #expect(try RegionsConfig.parse([]) == .cleared)
        #expect(try KnownBeaconsConfig.parse([]) == .cleared)
        #expect(try NodeSettings.parse([]) == .cleared)
    }

    @Test func roundTripsThroughItsJSONText() throws {
        let text = regionsMessage(#"{"id":"office","uuid":"\#(officeUUID)","major":1,"minor":2,"notifyOnEntry":false}"#)
        guard case .replaced(let config) = try RegionsConfig.parse(payload(text)) else {
            Issue.record("expected regions")
            return
        }
        #expect(try RegionsConfig.parse(payload(config.jsonText)) == .replaced(config))
    }

    @Test func errorsNameTheFieldAsMQTTmdShows() {
        let good = #"{"id":"a","uuid":"\#(officeUUID)"}"#
        #expect(
            regionsError(regionsMessage(#"\#(good),{"id":"b","uuid":"\#(officeUUID)"},{"id":"c","uuid":"abc"}"#))
                == "regions[2].uuid: 'abc' is not a UUID")
        #expect(
            regionsError(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","minor":2}"#))
                == "regions[0].minor: minor requires major")
        #expect(
            regionsError(
                regionsMessage(
                    #"{"id":"a","uuid":"\#(officeUUID)"},{"id":"b","uuid":"\#(officeUUID)"},{"id":"office","uuid":"\#(officeUUID)"},{"id":"office","uuid":"\#(officeUUID)","major":3}"#
                )) == "regions[3].id: duplicate id 'office'")
        #expect(
            regionsError(regionsMessage(#"\#(good),{"id":"b","uuid":"\#(officeUUID)","major":70000}"#))
                == "regions[1].major: 70000 is not in 0…65535")
        #expect(
            regionsError(regionsMessage(#"{"id":"b","uuid":"\#(officeUUID)","major":1,"minor":-1}"#))
                == "regions[0].minor: -1 is not in 0…65535")
        #expect(
            regionsError(regionsMessage(#"{"id":"b","uuid":"\#(officeUUID)","major":99999999999999999999999}"#))
                == "regions[0].major: 99999999999999999999999 is not in 0…65535")
    }

    @Test func rejectsUnknownKeysSoTyposDoNotPassSilently() {
        #expect(
            regionsError(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","notifyOnEnter":false}"#))
                == "regions[0].notifyOnEnter: unknown key (known keys: id, uuid, major, minor, notifyOnEntry, notifyOnExit)")
        #expect(
            regionsError(#"{"revision":1,"regions":[],"region":[]}"#)
                == "region: unknown key (known keys: revision, regions)")
    }

    @Test func rejectsWrongJSONTypes() {
        #expect(regionsError(#"[]"#) == "payload: expected an object, got an array")
        #expect(regionsError(#"{"revision":"7","regions":[]}"#) == "revision: expected an integer, got a string")
        #expect(regionsError(#"{"revision":7.5,"regions":[]}"#) == "revision: expected an integer, got 7.5")
        #expect(regionsError(#"{"revision":-1,"regions":[]}"#) == "revision: -1 is not in 0…9007199254740991")
        #expect(regionsError(#"{"regions":[]}"#) == "revision: required")
        #expect(regionsError(#"{"revision":1}"#) == "regions: required")
        #expect(regionsError(#"{"revision":1,"regions":{}}"#) == "regions: expected an array, got an object")
        #expect(regionsError(regionsMessage("5")) == "regions[0]: expected an object, got an integer")
        #expect(regionsError(regionsMessage(#"{"id":7,"uuid":"\#(officeUUID)"}"#)) == "regions[0].id: expected a string, got an integer")
        #expect(regionsError(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","major":"1"}"#)) == "regions[0].major: expected an integer, got a string")
        #expect(regionsError(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","major":1.5}"#)) == "regions[0].major: expected an integer, got 1.5")
        #expect(regionsError(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","notifyOnExit":"no"}"#)) == "regions[0].notifyOnExit: expected true or false, got a string")
        #expect(regionsError(regionsMessage(#"{"id":"a","uuid":null}"#)) == "regions[0].uuid: required")
        #expect(regionsError(regionsMessage(#"{"uuid":"\#(officeUUID)"}"#)) == "regions[0].id: required")
    }

    @Test func nullCountsAsAbsentForOptionalFields() throws {
        let text = regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","major":null,"minor":null,"notifyOnEntry":null}"#)
        guard case .replaced(let config) = try RegionsConfig.parse(payload(text)) else {
            Issue.record("expected regions")
            return
        }
        #expect(config.regions[0].major == nil && config.regions[0].notifyOnEntry)
    }

    @Test func rejectsIDsThatCouldBreakATopic() {
        for bad in ["Office", "a/b", "a+b", "a#", "", "a b", "caf\u{e9}", String(repeating: "x", count: 65)] {
            let text = regionsMessage("{\"id\":\(JSONText.quoted(bad)),\"uuid\":\"\(officeUUID)\"}")
            #expect(
                regionsError(text)
                    == "regions[0].id: \(ConfigError.quoted(bad)) is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')")
        }
        #expect(
            regionsError(regionsMessage(#"{"id":"a\u0000b","uuid":"\#(officeUUID)"}"#))
                == "regions[0].id: 'a\\u{0}b' is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')")
    }

    @Test func errorsCarryACodeForPrograms() {
        func code(_ text: String) -> ConfigError.Code? {
            do {
                _ = try RegionsConfig.parse(payload(text))
                return nil
            } catch { return error.code }
        }
        #expect(code("{") == .invalidJSON)
        #expect(code(regionsMessage(#"{"id":"a","uuid":"abc"}"#)) == .invalidValue)
        #expect(code(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","major":70000}"#)) == .outOfRange)
        #expect(code(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)","x":1}"#)) == .unknownKey)
        #expect(code(regionsMessage(#"{"id":"a"}"#)) == .missing)
        #expect(code(regionsMessage(#"{"id":1}"#)) == .wrongType)
        #expect(code(regionsMessage(#"{"id":"a","uuid":"\#(officeUUID)"},{"id":"a","uuid":"\#(officeUUID)"}"#)) == .duplicate)
        do {
            _ = try RegionsConfig.parse(payload("{}"), maximumBytes: 1)
        } catch { #expect(error.code == .payloadTooLarge) }
    }

    @Test func errorsCarryTheRevisionOfTheRejectedMessage() {
        do {
            _ = try RegionsConfig.parse(payload(regionsMessage(#"{"id":"c","uuid":"abc"}"#, revision: 8)))
            Issue.record("expected an error")
        } catch {
            #expect(error.messageRevision == 8)
        }
        do {
            _ = try RegionsConfig.parse(payload("{\"revision\":8,"))
            Issue.record("expected an error")
        } catch {
            #expect(error.messageRevision == nil)
        }
    }

    @Test func sizeLimitGivesAClearError() {
        let big = payload(regionsMessage(String(repeating: " ", count: 2_000_000)))
        #expect(regionsError(String(decoding: big, as: UTF8.self)) == "payload: payload is \(big.count) bytes; the limit is 1048576 bytes")
        do {
            _ = try RegionsConfig.parse(payload(regionsMessage("")), maximumBytes: 10)
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "payload: payload is 27 bytes; the limit is 10 bytes")
        }
    }

    @Test func tenThousandRegionsFitInOneMessage() throws {
        let regions = (0..<10_000).map { #"{"id":"r\#($0)","uuid":"\#(officeUUID)","major":\#($0 / 100),"minor":\#($0)}"# }
        let text = regionsMessage(regions.joined(separator: ","))
        guard case .replaced(let config) = try RegionsConfig.parse(payload(text)) else {
            Issue.record("expected regions")
            return
        }
        #expect(config.regions.count == 10_000)
    }
}
