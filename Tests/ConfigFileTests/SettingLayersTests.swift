import ConfigFile
import Testing

/// The layering both programs share, on a small table of its own: precedence, where each value came
/// from, and every mistake named by the field as its layer spells it.
@Suite struct SettingLayersTests {
    struct Toy: Sendable {
        var host = "localhost"
        var port = 1883
        var verbose = false
        var dryRun = false
    }

    static let table: [Setting<String, Toy>] = [
        Setting("host", "host", environment: "TOY_HOST", flag: "--host", default: "localhost", read: { $0.host = $1.text }, show: { $0.host }),
        Setting("port", "net.port", environment: "TOY_PORT", flag: "--port", default: "1883", read: {
            guard let port = Int($1.text), (1...65535).contains(port) else { throw SettingError("'\($1.text)' is not a port") }
            $0.port = port
        }, show: { String($0.port) }),
        Setting("verbose", "net.verbose", environment: "TOY_VERBOSE", default: "false", notAValue: "expected true or false", read: {
            guard let flag = $1.boolean else { throw SettingError("'\($1.text)' is not true or false") }
            $0.verbose = flag
        }, show: { String($0.verbose) }),
        Setting("dryRun", "dryRun", inFile: false, flag: "--dry-run", default: "false", read: { $0.dryRun = $1.boolean ?? false },
                show: { String($0.dryRun) }),
    ]

    private func layers() -> SettingLayers<String, Toy> { SettingLayers(Self.table, configuration: Toy()) }

    private func file(_ layers: inout SettingLayers<String, Toy>, _ yaml: String) -> SettingLayers<String, Toy>.Layer {
        layers.fileLayer(yaml: yaml, file: "toy.yaml") { section in
            section == nil ? Self.table.fileKeys(in: nil) + ["extra"] : Self.table.fileKeys(in: section)
        } other: { layers, key, line, _ in
            guard key == "extra" else { return false }
            layers.record("extra", from: .file(path: "toy.yaml", line: line))
            return true
        }
    }

    private func described(_ problems: [SettingProblem]) -> [String] {
        problems.map { ($0.source?.errorPrefix ?? "") + ($0.field.isEmpty ? "" : "\($0.field): ") + $0.message }
    }

    @Test func defaultsThenFileThenEnvironmentThenFlags() {
        var layers = layers()
        #expect(layers.effectiveSettings.map(\.value) == Self.table.map(\.defaultValue))
        layers.apply(file(&layers, "host: file-host\nnet:\n  port: 1000\n  verbose: yes\nextra: 1\n"))
        layers.apply(layers.environmentLayer(["TOY_PORT": "2000", "TOY_HOST": ""], ignoringEmpty: true))
        layers.apply(layers.flagLayer(["port": "3000", "dryRun": "true"]))
        #expect(layers.problems.isEmpty)
        let shown = layers.effectiveSettings
        #expect(shown.map(\.key) == ["host", "net.port", "net.verbose", "dryRun"])
        #expect(shown.map(\.value) == ["file-host", "3000", "true", "true"])
        #expect(shown.map(\.source) == [.file(path: "toy.yaml", line: 1), .flag("--port"), .file(path: "toy.yaml", line: 4), .flag("--dry-run")])
        #expect(layers.sources["extra"] == .file(path: "toy.yaml", line: 5))
    }

    @Test func anEmptyVariableSetsTheEmptyTextUnlessIgnored() {
        var layers = layers()
        layers.apply(layers.environmentLayer(["TOY_HOST": ""], ignoringEmpty: false))
        #expect(layers.configuration.host == "" && layers.sources["host"] == .environment("TOY_HOST"))
    }

    /// The file's shape in the file's order, then the values in the table's order; a refused value
    /// leaves the setting as it was and is named by the layer's spelling of the field.
    @Test func everyMistakeIsNamed() {
        var layers = layers()
        layers.apply(file(&layers, """
            net:
              port: many
              verbose: [a]
              speed: 3
            dryRun: true
            host: ~
            """))
        #expect(described(layers.problems) == [
            "toy.yaml:3: net.verbose: expected true or false",
            "toy.yaml:4: net.speed: unknown key (known keys: port, verbose)",
            "toy.yaml:5: dryRun: unknown key (known keys: host, net, extra)",
            "toy.yaml:2: net.port: 'many' is not a port",
        ])
        #expect(layers.configuration.port == 1883 && layers.refused == ["port"])
        #expect(layers.configuration.host == "localhost")  // an empty value leaves the default
        layers.problems = []
        layers.apply(layers.environmentLayer(["TOY_PORT": "0"], ignoringEmpty: true))
        layers.apply(layers.flagLayer(["port": "x"]))
        #expect(described(layers.problems) == ["TOY_PORT: '0' is not a port", "--port: 'x' is not a port"])
    }

    @Test func theFileAsAWhole() {
        var layers = layers()
        #expect(file(&layers, "").isEmpty && file(&layers, "# nothing\n").isEmpty)
        _ = file(&layers, "- a\n- b\n")
        _ = file(&layers, "net: 3\n")
        _ = file(&layers, "host: [unclosed\n")
        #expect(described(layers.problems) == [
            "toy.yaml:1: expected a mapping of settings at the top level",
            "toy.yaml:1: net: expected a mapping",
            "toy.yaml:2: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence on line 1)",
        ])
    }

    /// check-config's one shape: the table, or every mistake after the program's prefix.
    @Test func checkConfigReport() {
        let settings = [EffectiveSetting(key: "host", value: "h", source: .defaultValue),
                        EffectiveSetting(key: "net.port", value: "1", source: .flag("--port"))]
        let good = CheckConfigReport(settings: settings, errors: [], errorPrefix: "error: ")
        #expect(good == CheckConfigReport(settings: settings, errors: [], errorPrefix: "check-config: "))
        #expect(good.standardOutput == "host      h  default\nnet.port  1  --port\n")
        #expect(good.standardError == "" && good.status == 0)
        let bad = CheckConfigReport(settings: settings, errors: ["a.yaml:1: host: bad", "--port: bad"], errorPrefix: "check-config: ")
        #expect(bad.standardOutput == "")
        #expect(bad.standardError == "check-config: a.yaml:1: host: bad\ncheck-config: --port: bad\n")
        #expect(bad.status == 2)
    }
}
