import Foundation
import Testing
import TestSupport
import ConfigFile

@Suite struct YAMLReaderTests {
    private func parse(_ text: String) throws -> YAMLNode? { try YAMLReader.parse(text) }

    private func parseError(_ text: String) -> String? {
        do {
            _ = try YAMLReader.parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    private func plain(_ text: String) -> YAMLNode { .scalar(YAMLScalar(text)) }

    private func mapping(_ entries: [(String, YAMLNode)]) -> YAMLNode {
        var mapping = YAMLMapping()
        for (key, value) in entries { mapping.append(key: key, value: value) }
        return .mapping(mapping)
    }

    private func shippedFile(_ name: String) throws -> String {
        try String(contentsOfFile: RecordedData.packageRoot().appendingPathComponent("etc/" + name).path, encoding: .utf8)
    }

    // MARK: - What the configuration files use

    @Test func theShippedConfigurationFiles() throws {
        let agent = try #require(try parse(try shippedFile("presence-agent.yaml"))?.mapping)
        #expect(agent.keys == ["node", "room", "source", "speed", "broker", "root", "stateDir", "reportUnknown",
                               "telemetryInterval", "maxTrackedBeacons", "nodeBeacon", "tracking", "regions"])
        #expect(agent["nodeBeacon"] == mapping([("enabled", plain("true")), ("interval", plain("1"))]))
        #expect(agent["node"] == plain("kitchen-1"))
        #expect(agent["broker"]?.mapping?["url"] == plain("mqtt://127.0.0.1:1883"))
        #expect(agent["broker"]?.mapping?["passwordFile"] == plain("/etc/presence/kitchen-1.password"))
        #expect(agent["tracking"]?.isNull == true)  // every key in it is commented out
        #expect(agent["regions"] == mapping([("exitDelay", plain("30"))]))

        let aggregator = try #require(try parse(try shippedFile("presence-aggregator.yaml"))?.mapping)
        #expect(aggregator["username"]?.isNull == true)
        #expect(aggregator["tls"]?.mapping?.keys == ["caFile", "certificateFile", "keyFile"])
        #expect(aggregator["beacons"] == .sequence([mapping([
            ("beacon", plain("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6")), ("id", plain("alice-keys")),
            ("name", plain("Alice's keys")),
        ])]))
        #expect(aggregator["decision"]?.mapping?["margin"] == plain("0"))
        #expect(aggregator["decision"]?.mapping?["fallRate"] == plain("4"))
        #expect(aggregator["failover"]?.mapping?["instance"]?.isNull == true)
    }

    /// Home Assistant YAML of the kind Sources/PresenceAggregator/PresenceAggregator.docc/HomeAssistant.md shows (an automation,
    /// an `mqtt_room` sensor), and the one-line flow forms of PastOneBuilding.md (failover) and
    /// PhonesAndWatches.md (a `beacons:` entry).
    @Test func theDocumentedExamples() throws {
        let automation = try parse("""
            automation:
              - alias: Kitchen lights when Alice comes in
                triggers:
                  - trigger: mqtt
                    topic: presence/events
                conditions:
                  - condition: template
                    value_template: "{{ trigger.payload_json.id == 'alice-keys' and trigger.payload_json.to == 'kitchen' }}"
                actions:
                  - action: light.turn_on
                    target: { entity_id: light.kitchen }
            """)
        let rule = try #require(automation?.mapping?["automation"]?.sequence?.first?.mapping)
        #expect(rule.keys == ["alias", "triggers", "conditions", "actions"])
        #expect(rule["triggers"] == .sequence([mapping([("trigger", plain("mqtt")), ("topic", plain("presence/events"))])]))
        #expect(rule["conditions"]?.sequence?.first?.mapping?["value_template"]?.scalar == YAMLScalar(
            "{{ trigger.payload_json.id == 'alice-keys' and trigger.payload_json.to == 'kitchen' }}", style: .doubleQuoted))
        #expect(rule["actions"]?.sequence?.first?.mapping?["target"] == mapping([("entity_id", plain("light.kitchen"))]))

        let sensor = try parse("""
            sensor:
              - platform: mqtt_room
                device_id: alice-keys               # the measurement's "id": the alias, else the canonical id
                name: Alice's keys (mqtt_room)
                timeout: 65                         # more than the agents' 60 s heartbeat
            """)
        let entry = try #require(sensor?.mapping?["sensor"]?.sequence?.first?.mapping)
        #expect(entry["device_id"] == plain("alice-keys"))
        #expect(entry["name"] == plain("Alice's keys (mqtt_room)"))
        #expect(entry["timeout"] == plain("65"))

        #expect(try parse("failover: {enabled: true, instance: agg-a}")
            == mapping([("failover", mapping([("enabled", plain("true")), ("instance", plain("agg-a"))]))]))
        #expect(try parse("beacons:\n  - { beacon: ibeacon-x-1-1, id: alice, name: Alice }\n")
            == mapping([("beacons", .sequence([mapping([("beacon", plain("ibeacon-x-1-1")), ("id", plain("alice")), ("name", plain("Alice"))])]))]))
    }

    @Test func scalars() throws {
        let document = try #require(try parse(#"""
            plain: a b#c  # a comment
            url: mqtt://host:1883/x
            single: 'it''s # not a comment'
            double: "tab\there \"q\" \\ \x41\u00e9\U0001F600 \0end"
            emptyQuoted: ''
            tilde: ~
            word: null
            nothing:
            quotedNull: "null"
            spaced:    value with spaces   
            "quoted key": 1
            'single key': 2
            colon:in:key: 3
            """#)?.mapping)
        #expect(document["plain"] == plain("a b#c"))
        #expect(document["url"] == plain("mqtt://host:1883/x"))
        #expect(document["single"]?.scalar == YAMLScalar("it's # not a comment", style: .singleQuoted))
        #expect(document["double"]?.scalar?.text == "tab\there \"q\" \\ A\u{e9}\u{1F600} \u{0}end")
        #expect(document["emptyQuoted"]?.scalar == YAMLScalar("", style: .singleQuoted))
        #expect(document["emptyQuoted"]?.isNull == false)
        #expect(document["tilde"]?.isNull == true && document["word"]?.isNull == true && document["nothing"]?.isNull == true)
        #expect(document["quotedNull"]?.isNull == false)
        #expect(document["spaced"] == plain("value with spaces"))
        #expect(document["quoted key"] == plain("1") && document["single key"] == plain("2"))
        #expect(document["colon:in:key"] == plain("3"))
    }

    @Test func blockListsAndMappings() throws {
        // A list at its key's indentation, nested lists, mappings as items, an empty item.
        let document = try #require(try parse("""
            sameIndent:
            - a
            - b
            nested:
              - - x
                - y
              - z
            items:
              - name: one
                tags: [red, "blue, green"]
              -
                name: two
              - 
            deep:
              level1:
                level2:
                  level3: bottom
            after: end
            """)?.mapping)
        #expect(document["sameIndent"] == .sequence([plain("a"), plain("b")]))
        #expect(document["nested"] == .sequence([.sequence([plain("x"), plain("y")]), plain("z")]))
        #expect(document["items"] == .sequence([
            mapping([("name", plain("one")), ("tags", .sequence([plain("red"), .scalar(YAMLScalar("blue, green", style: .doubleQuoted))]))]),
            mapping([("name", plain("two"))]),
            plain(""),
        ]))
        #expect(document["deep"]?.mapping?["level1"]?.mapping?["level2"]?.mapping?["level3"] == plain("bottom"))
        #expect(document["after"] == plain("end"))
    }

    @Test func flowCollections() throws {
        #expect(try parse("[]") == .sequence([]))
        #expect(try parse("{}") == .mapping(YAMLMapping()))
        #expect(try parse("[a, [b, c], {d: 1, e: [2]}, 'x, y',]  # comment")
            == .sequence([plain("a"), .sequence([plain("b"), plain("c")]), mapping([("d", plain("1")), ("e", .sequence([plain("2")]))]),
                          .scalar(YAMLScalar("x, y", style: .singleQuoted))]))
        #expect(try parse("{url: mqtt://h:1, empty: , bare}")
            == mapping([("url", plain("mqtt://h:1")), ("empty", plain("")), ("bare", plain(""))]))
    }

    @Test func documentsAndLineEnds() throws {
        #expect(try parse("") == nil)
        #expect(try parse("# only a comment\n\n   \n") == nil)
        #expect(try parse("---\n") == nil)
        #expect(try parse("--- # start\na: 1\n...\n# trailing comment\n") == mapping([("a", plain("1"))]))
        #expect(try parse("\u{FEFF}a: 1\r\nb: 'two'\r\n") == mapping([("a", plain("1")), ("b", .scalar(YAMLScalar("two", style: .singleQuoted)))]))
        #expect(try parse("a:\tvalue\n  \t# a comment after a tab\n") == mapping([("a", plain("value"))]))
        #expect(try parse("  a: 1\n  b: 2") == mapping([("a", plain("1")), ("b", plain("2"))]))
        #expect(try parse("just text") == plain("just text"))
    }

    // MARK: - YAML the old hand-written reader refused, now read as every YAML tool reads it

    @Test func whatTheOldReaderRefused() throws {
        let document = try #require(try parse("""
            %YAML 1.1
            ---
            defaults: &base {dwell: 3, margin: 0.25}
            copy: *base
            literal: |
              two
              lines
            folded: >
              one
              line
            multiline: a plain value
              continued
            tagged: !!str yes
            ? explicit
            : key
            """)?.mapping)
        #expect(document["copy"] == document["defaults"])
        #expect(document["copy"]?.mapping?["dwell"] == plain("3"))
        #expect(document["literal"]?.scalar == YAMLScalar("two\nlines\n", style: .block))
        #expect(document["folded"]?.scalar == YAMLScalar("one line\n", style: .block))
        #expect(document["multiline"] == plain("a plain value continued"))
        #expect(document["tagged"]?.scalar == YAMLScalar("yes", style: .tagged))
        #expect(document["tagged"]?.scalar?.boolean == true)  // a boolean setting reads the words, whatever the style
        #expect(document["explicit"] == plain("key"))
    }

    @Test func linesOfKeysAndValues() throws {
        let document = try #require(try parse("# a comment\nnode: a\n\nbroker:\n  url: mqtt://x\n  username: u\nlist:\n  - one\n  - two\n"))
        let mapping = try #require(document.mapping)
        #expect(mapping.line(of: "node") == 2 && mapping.line(of: "broker") == 4 && mapping.line(of: "list") == 7)
        #expect(mapping["broker"]?.mapping?.line(of: "username") == 6)
        #expect(mapping["list"]?.sequence?.map(\.line) == [8, 9])
    }

    @Test func booleanWordsOfBothYAMLVersions() {
        for word in ["true", "True", "TRUE", "yes", "Yes", "on", "ON"] { #expect(YAMLScalar(word).boolean == true) }
        for word in ["false", "False", "no", "NO", "off", "Off"] { #expect(YAMLScalar(word).boolean == false) }
        for word in ["y", "n", "1", "0", "enabled", ""] { #expect(YAMLScalar(word).boolean == nil) }
    }

    // MARK: - What is refused, by line

    @Test(arguments: [
        ("a: 1\na: 2", "line 2: duplicate key 'a'"),
        ("a: {b: 1, b: 2}", "line 1: duplicate key 'b'"),
        ("a: 1\nb:\n  c: 1\n  c: 2", "line 4: duplicate key 'c'"),
        ("a: 1\n---\nb: 2", "line 2: a second document (---): one document per configuration file"),
        ("a: *nothing", "line 1: alias *nothing names no anchor (&nothing) before it"),
        ("? [a, b]\n: c", "line 1: a list or mapping as a key; keys are text"),
        ("a:\n\tb: 1", "line 2: found character that cannot start any token (while scanning for the next token on line 2)"),
        ("broker: [unclosed", "line 2: did not find expected ',' or ']' (while parsing a flow sequence on line 1)"),
        ("a: b: c", "line 1: mapping values are not allowed in this context"),
        ("a: 'open", "line 1: found unexpected end of stream (while scanning a quoted scalar on line 1)"),
        ("a: \"\\q\"", "line 1: found unknown escape character (while parsing a quoted scalar on line 1)"),
        ("a: 1\n- b", "line 2: did not find expected key (while parsing a block mapping on line 1)"),
        // YAML 1.1 (libyaml): in { }, a key with no value needs a space before the ',' (YAML 1.2 allows `a:,`).
        ("b: {empty:, bare}", "line 1: found unexpected ':' (while scanning a plain scalar on line 1)"),
        ("a: @b", "line 1: found character that cannot start any token (while scanning for the next token on line 1)"),
        ("a: 1\nb: \u{7}", "line 2: control characters are not allowed"),
    ])
    func refusedWithItsLine(text: String, expected: String) {
        #expect(parseError(text) == expected)
    }

    @Test func nestingIsBounded() throws {
        let deepFlow = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(parseError(deepFlow) == "line 1: nested deeper than 64 levels")
        let deepBlock = (0..<200).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n")
        #expect(parseError(deepBlock)?.hasSuffix("nested deeper than 64 levels") == true)
        #expect(try parse(String(repeating: "- ", count: 60) + "x") != nil)
    }

    /// A few lines of aliases that would expand to billions of values are refused, not expanded.
    @Test func aliasesCannotExplode() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<9 { text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        #expect(parseError(text)?.contains("more than 1000000 values once aliases are expanded") == true)
    }

    @Test func manyKeysStayLinear() throws {
        let text = (0..<50_000).map { "k\($0): \($0)" }.joined(separator: "\n")
        let document = try #require(try parse(text)?.mapping)
        #expect(document.count == 50_000)
        #expect(document["k49999"] == plain("49999"))
        #expect(parseError(text + "\nk123: again") == "line 50001: duplicate key 'k123'")
    }

    /// Seeded random bytes, random YAML-ish text, and truncated or damaged copies of the shipped
    /// files: a document or an error, never a crash.
    @Test func randomBytesNeverCrash() throws {
        var generator = SeededRandom(seed: 0x7A41)
        let alphabet = Array("abc:-#[]{},'\"\\ \t\n\r&*!|>?%@`~0x".utf8) + [0x00, 0xC3, 0xFF]
        let files = [try shippedFile("presence-agent.yaml"), try shippedFile("presence-aggregator.yaml")].map { Array($0.utf8) }
        var accepted = 0
        var refused = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = generator.bytes(Int(generator.next() % 96))
            case 1:
                bytes = (0..<Int(generator.next() % 96)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            default:
                let file = files[round % 2]
                bytes = Array(file.prefix(Int(generator.next() % UInt64(file.count + 1))))
                for _ in 0..<Int(generator.next() % 4) where !bytes.isEmpty {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }
            }
            do {
                _ = try YAMLReader.parse(String(decoding: bytes, as: UTF8.self))
                accepted += 1
            } catch {
                #expect(error.line >= 1 && !error.message.isEmpty)
                refused += 1
            }
        }
        #expect(accepted > 1_000 && refused > 1_000)
    }
}
