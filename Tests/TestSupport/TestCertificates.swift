import Foundation

/// A throwaway PKI made with `openssl`: a CA, a server certificate for 127.0.0.1 and localhost,
/// and a client certificate, all signed by the CA (EC P-256, valid two days).
public struct TestCertificates: Sendable {
    public let directory: String
    public var caFile: String { directory + "/ca.crt" }
    public var serverCertificateFile: String { directory + "/server.crt" }
    public var serverKeyFile: String { directory + "/server.key" }
    public var clientCertificateFile: String { directory + "/client.crt" }
    public var clientKeyFile: String { directory + "/client.key" }

    public static let openssl = "/usr/bin/openssl"

    /// Generates the files into `directory` (which must exist).
    public static func generate(in directory: String) throws -> TestCertificates {
        func file(_ name: String) -> String { directory + "/" + name }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            ["req", "-x509"] + key + [
                "-keyout", file("ca.key"), "-out", file("ca.crt"), "-days", "2", "-subj", "/CN=BeaconPresence test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        for (name, commonName, serial, extensions) in [
            ("server", "localhost", "1001", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"),
            ("client", "test-client", "1002", "extendedKeyUsage=clientAuth\n"),
        ] {
            try extensions.write(toFile: file("\(name).ext"), atomically: true, encoding: .utf8)
            try run(["req"] + key + ["-keyout", file("\(name).key"), "-out", file("\(name).csr"), "-subj", "/CN=\(commonName)"])
            try run([
                "x509", "-req", "-in", file("\(name).csr"), "-CA", file("ca.crt"), "-CAkey", file("ca.key"),
                "-set_serial", serial, "-out", file("\(name).crt"), "-days", "2", "-extfile", file("\(name).ext"),
            ])
        }
        // Started as root, mosquitto reads them as user `mosquitto`.
        for name in ["ca.crt", "server.crt", "server.key", "client.crt", "client.key"] {
            chmod(file(name), 0o644)
        }
        return TestCertificates(directory: directory)
    }

    private static func run(_ arguments: [String]) throws {
        let result = try ToolRunner.run(openssl, arguments)
        guard result.status == 0 else {
            throw TestBrokerError(.toolFailed, "openssl \(arguments.joined(separator: " ")) failed: \(result.output)")
        }
    }
}
