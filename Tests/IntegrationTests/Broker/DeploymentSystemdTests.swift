import Foundation
import Testing
import TestSupport

/// The shipped systemd units (etc/systemd/): systemd's own parser accepts every line, and the
/// agent keeps what its raw HCI socket needs while the aggregator gets no privileges.
@Suite("Deployment: systemd units")
struct DeploymentSystemdTests {
    static let units = ["presence-agent.service", "presence-aggregator.service"]

    @Test("systemd-analyze verify reports nothing for either unit")
    func systemdAcceptsTheUnits() throws {
        // verify wants the ExecStart binaries and systemd's own units (sysinit.target…) under the
        // root it checks: a temporary root with stand-ins for the binaries.
        let root = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = FileManager.default
        try files.createDirectory(atPath: root + "/usr/local/bin", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "/etc/systemd/system", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "/usr/lib/systemd", withIntermediateDirectories: true)
        try files.copyItem(atPath: "/usr/lib/systemd/system", toPath: root + "/usr/lib/systemd/system")
        for binary in ["presence-agent", "presence-aggregator"] {
            let path = root + "/usr/local/bin/" + binary
            try "#!/bin/sh\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }
        var unitPaths: [String] = []
        for unit in Self.units {
            let path = root + "/etc/systemd/system/" + unit
            try DeploymentFiles.text("etc/systemd/" + unit).write(toFile: path, atomically: true, encoding: .utf8)
            unitPaths.append(path)
        }
        let result = try ToolRunner.run("/usr/bin/systemd-analyze", ["verify", "--root=\(root)"] + unitPaths)
        // It reports unknown settings and bad values on its output but still exits 0.
        #expect(result.status == 0)
        #expect(result.output.isEmpty, "systemd-analyze verify:\n\(result.output)")
    }

    @Test("the agent keeps CAP_NET_RAW, CAP_NET_ADMIN and AF_BLUETOOTH and nothing that breaks the HCI socket")
    func agentUnit() throws {
        let unit = try SystemdUnit(DeploymentFiles.text("etc/systemd/presence-agent.service"))
        let capabilities: Set<Substring> = ["CAP_NET_RAW", "CAP_NET_ADMIN"]
        #expect(unit.words("AmbientCapabilities") == capabilities)
        #expect(unit.words("CapabilityBoundingSet") == capabilities)
        #expect(unit.words("RestrictAddressFamilies").isSuperset(of: ["AF_BLUETOOTH", "AF_UNIX", "AF_INET", "AF_INET6"]))
        // A new network namespace has no Bluetooth adapter; capabilities in a user namespace do
        // not reach the host's adapter; PrivateDevices hides the UART.
        for setting in ["PrivateNetwork", "PrivateUsers", "PrivateDevices"] {
            #expect(unit.values(setting).allSatisfy { $0 == "no" }, "\(setting)=\(unit.values(setting))")
        }
        #expect(unit.values("DeviceAllow").contains("char-ttyACM rw"))
        #expect(unit.values("User") == ["presence"])
        #expect(unit.values("StateDirectory") == ["presence-agent"])
        #expect(unit.values("ExecStart") == ["/usr/local/bin/presence-agent run --config /etc/presence/presence-agent.yaml"])
        #expect(unit.values("Restart") == ["on-failure"])
        for hardening in ["NoNewPrivileges", "ProtectHome", "PrivateTmp"] { #expect(unit.values(hardening) == ["yes"]) }
        #expect(unit.values("ProtectSystem") == ["strict"])
    }

    @Test("the aggregator runs with no capabilities, no devices and no Bluetooth sockets")
    func aggregatorUnit() throws {
        let unit = try SystemdUnit(DeploymentFiles.text("etc/systemd/presence-aggregator.service"))
        #expect(unit.values("CapabilityBoundingSet") == [""])
        #expect(!unit.words("RestrictAddressFamilies").contains("AF_BLUETOOTH"))
        #expect(unit.values("PrivateDevices") == ["yes"])
        #expect(unit.values("ExecStart") == ["/usr/local/bin/presence-aggregator run --config /etc/presence/presence-aggregator.yaml"])
        #expect(unit.values("User") == ["presence"])
        #expect(unit.values("StateDirectory") == ["presence-aggregator"])
    }

    @Test("the sysusers.d line creates the user both units run as")
    func systemUser() throws {
        let lines = try DeploymentFiles.text("etc/systemd/presence.sysusers").split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.allSatisfy(\.isWhitespace) }
        #expect(lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(2).joined(separator: " ") } == ["u presence"])
    }
}

/// The `key=value` lines of a unit file (comments and section headers left out), enough to check
/// what the shipped units set.
struct SystemdUnit {
    let settings: [(key: Substring, value: Substring)]

    init(_ text: String) throws {
        settings = text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (line[..<equals], line[line.index(after: equals)...])
        }
    }

    /// Every value given for `key`, in order.
    func values(_ key: String) -> [Substring] {
        settings.filter { $0.key == key }.map(\.value)
    }

    /// The space-separated words of every value for `key`.
    func words(_ key: String) -> Set<Substring> {
        Set(values(key).flatMap { $0.split(separator: " ") })
    }
}
