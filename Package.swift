// swift-tools-version:6.0
import PackageDescription

// Targets follow docs/Architecture.md: a pure core, C libraries wrapped once,
// executables that only parse and wire.
let package = Package(
    name: "BeaconPresence",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "presence-agent", targets: ["presence-agent"]),
        .executable(name: "presence-aggregator", targets: ["presence-aggregator"]),
        .executable(name: "presence-bench", targets: ["presence-bench"]),
        .library(name: "BeaconCore", targets: ["BeaconCore"]),
        .library(name: "RoomDecisions", targets: ["RoomDecisions"]),
        .library(name: "MQTTClient", targets: ["MQTTClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // Builds the DocC catalogs (`swift package generate-documentation`); no code links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Pure core of both programs: HCI and advertising decoding, btsnoop, tracking, regions, config
        // messages, payloads, traces.
        .target(name: "BeaconCore"),
        // Pure, the aggregator's side only (the agent does not link it): per-beacon evidence from every
        // node, the physics room rule, the site model (learn, decide), ground truth and its scoring.
        .target(name: "RoomDecisions", dependencies: ["BeaconCore"]),
        // The one clock both services run on (`ServiceClock`) and the system's (`SystemClock`): not in
        // BeaconCore, whose core takes times as values and never waits; TestSupport has the manual one.
        .target(name: "Timekeeping", dependencies: ["BeaconCore"]),

        // libmosquitto, found by pkg-config; Debian's libmosquitto-dev provides it.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .target(
            name: "MQTTClient",
            dependencies: ["CMosquitto", .product(name: "Logging", package: "swift-log")]
        ),

        // libyaml, found by pkg-config `yaml-0.1`; Debian's libyaml-dev provides it (libyaml-0-2 at run time).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // The configuration file: YAML read by libyaml into nodes with line numbers, and where each
        // effective setting came from (`check-config`), and the `beacons:` list both programs read.
    // Outside BeaconCore, which stays pure Swift.
        .target(name: "ConfigFile", dependencies: ["CYAML", "BeaconCore"]),

        // libbluetooth (BlueZ), found by pkg-config `bluez`; a header shim for the socket filter.
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        // HCI transports (raw socket, H4 serial line, btsnoop replay, simulator) and controller setup.
        .target(name: "BluetoothHCI", dependencies: ["BeaconCore", "CBluetooth", "IdentityCrypto"]),

        // OpenSSL's libcrypto (pkg-config `libcrypto`; Debian's libssl-dev), wrapped once in
        // IdentityCrypto: AES-128 and SHA-256 for phones and watches known by their IRK. BeaconCore
        // holds the resolver's logic and takes these two functions as an `IdentityKeyCrypto`.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "IdentityCrypto", dependencies: ["BeaconCore", "CLibCrypto"]),

        // The agent service: transport → core → MQTT, config file, state directory.
        .target(
            name: "PresenceAgent",
            dependencies: [
                "BeaconCore", "BluetoothHCI", "MQTTClient", "ConfigFile", "IdentityCrypto", "Timekeeping",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The aggregator service (room decisions over MQTT, Home Assistant discovery) and replay.
        // IdentityCrypto: the SHA-256 that names a device pushed by its key in config/beacons.
        .target(
            name: "PresenceAggregator",
            dependencies: [
                "BeaconCore", "RoomDecisions", "MQTTClient", "ConfigFile", "IdentityCrypto", "Timekeeping",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // Evaluation, not product: scoring over sites, the peers' rules (Bermuda, strongest recent RSSI),
        // simulators (worn tags, motion sensors), oracles, the calibration fits of the defaults and the
        // site model's bench figures, the btsnoop writer of the synthetic captures. Only presence-bench and the tests link it (.ci/structure checks
        // that neither shipped program does).
        .target(name: "Evaluation", dependencies: ["BeaconCore", "RoomDecisions", "PresenceAggregator"]),

        .executableTarget(
            name: "presence-agent",
            dependencies: [
                "BeaconCore", "BluetoothHCI", "PresenceAgent", "ConfigFile", "IdentityCrypto", "Timekeeping",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // A release agent carries Swift's runtime inside (as `--static-swift-stdlib` does): a room
            // node needs only libmosquitto and libbluetooth, and only the runtime's pages the agent
            // uses are resident — about 3.5 MB less than mapping the shared runtime libraries. The two
            // libraries named are FoundationEssentials' own (swift-argument-parser imports it): its
            // static archive needs them and the modules compiled for dynamic linking do not name them.
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "presence-aggregator",
            dependencies: [
                "BeaconCore", "RoomDecisions", "PresenceAggregator", "ConfigFile", "Timekeeping",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // Figures for the docs: calibration, decision quality, speed. Run in release. It drives a
        // serial agent through the tests' fake controller on a pseudo-terminal (TestSupport), so the
        // bench and the tests share one fake controller.
        .executableTarget(
            name: "presence-bench",
            dependencies: [
                "BeaconCore", "RoomDecisions", "Evaluation", "BluetoothHCI", "PresenceAgent", "PresenceAggregator", "MQTTClient", "TestSupport", "IdentityCrypto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // libFuzzer harnesses, built only with -sanitize=fuzzer by .ci/fuzz.
        .executableTarget(name: "fuzz-hci-events", dependencies: ["BeaconCore"]),
        .executableTarget(name: "fuzz-btsnoop", dependencies: ["BeaconCore"]),
        .executableTarget(name: "fuzz-advertising-data", dependencies: ["BeaconCore"]),
        .executableTarget(name: "fuzz-config-json", dependencies: ["BeaconCore"]),
        .executableTarget(name: "fuzz-config-yaml", dependencies: ["ConfigFile"]),
        .executableTarget(name: "fuzz-trace-csv", dependencies: ["BeaconCore"]),

        // Test support: a real mosquitto on a free loopback port, and a killable client process.
        .target(
            name: "TestSupport",
            dependencies: ["MQTTClient", "BluetoothHCI", "BeaconCore", "IdentityCrypto", "Timekeeping", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport"
        ),
        .executableTarget(name: "mqtt-test-client", dependencies: ["MQTTClient"], path: "Tests/MQTTTestClient"),

        // Evaluation: the btsnoop writer the capture tests write with.
        .testTarget(name: "BeaconCoreTests", dependencies: ["BeaconCore", "Evaluation", "IdentityCrypto", "TestSupport"]),
        .testTarget(name: "RoomDecisionsTests", dependencies: ["RoomDecisions", "BeaconCore", "TestSupport"]),
        .testTarget(
            name: "EvaluationTests",
            dependencies: ["Evaluation", "PresenceAggregator", "RoomDecisions", "BeaconCore", "TestSupport"]
        ),
        // The YAML test suite's cases (MIT, licence beside them) are read from the folder, not bundled.
        .testTarget(name: "ConfigFileTests", dependencies: ["ConfigFile", "TestSupport"], exclude: ["yaml-test-suite"]),
        .testTarget(name: "BluetoothHCITests", dependencies: ["BluetoothHCI", "BeaconCore", "IdentityCrypto", "TestSupport"]),
        .testTarget(name: "MQTTClientTests", dependencies: ["MQTTClient", "TestSupport"]),
        .testTarget(
            name: "PresenceAggregatorTests",
            // Evaluation: the defaults' figures on the shared sites, against the strongest-RSSI rule.
            dependencies: ["PresenceAggregator", "RoomDecisions", "Evaluation", "BeaconCore", "BluetoothHCI", "MQTTClient", "Timekeeping", "TestSupport"]
        ),
        .testTarget(
            name: "PresenceAgentTests",
            dependencies: ["PresenceAgent", "BeaconCore", "BluetoothHCI", "MQTTClient", "ConfigFile", "IdentityCrypto", "Timekeeping", "TestSupport"]
        ),
        // Tests that start mosquitto or one of the programs: apart, so `swift test --skip IntegrationTests`
        // runs the pure ones in seconds.
        .testTarget(
            name: "IntegrationTests",
            // Evaluation: the btsnoop writer the agent's captures are written with.
            dependencies: [
                "PresenceAgent", "PresenceAggregator", "RoomDecisions", "BeaconCore", "BluetoothHCI", "MQTTClient", "ConfigFile",
                "IdentityCrypto", "Timekeeping", "TestSupport", "Evaluation",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
