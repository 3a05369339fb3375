import Testing
@testable import BluetoothHCI

@Suite struct SourceSpecificationTests {
    @Test func parsesEverySourceKind() throws {
        #expect(try SourceSpecification(parsing: "hci0") == .hciSocket(deviceID: 0))
        #expect(try SourceSpecification(parsing: "hci:2") == .hciSocket(deviceID: 2))
        #expect(try SourceSpecification(parsing: "uart:/dev/ttyACM0")
            == .uart(.init(path: "/dev/ttyACM0", baudRate: 1_000_000)))
        #expect(try SourceSpecification(parsing: "uart:/dev/ttyUSB1@115200")
            == .uart(.init(path: "/dev/ttyUSB1", baudRate: 115_200)))
        #expect(try SourceSpecification(parsing: "btsnoop:/tmp/a b.log") == .btsnoop(path: "/tmp/a b.log"))
        #expect(try SourceSpecification(parsing: "simulate") == .simulate(scenarioPath: nil))
        #expect(try SourceSpecification(parsing: "simulate:flat.json") == .simulate(scenarioPath: "flat.json"))
    }

    @Test func namesWhatIsWrong() {
        let cases: [(String, String)] = [
            ("hcix", "--source 'hcix': an adapter is hci0, hci1, … or hci:N"),
            ("uart:/dev/ttyACM0@12", "--source 'uart:/dev/ttyACM0@12': '12' is not a supported speed (9600 … 4000000 baud)"),
            ("uart:ttyACM0", "--source 'uart:ttyACM0': give the serial device's full path, e.g. uart:/dev/ttyACM0"),
            ("btsnoop:", "--source 'btsnoop:': name the capture file, e.g. btsnoop:capture.log"),
            ("bluetooth", "--source 'bluetooth': unknown source; expected hci0, hci:N, uart:/dev/tty…[@baud], btsnoop:FILE or simulate[:FILE]"),
        ]
        for (text, message) in cases {
            #expect(throws: SourceSpecificationError.self) { try SourceSpecification(parsing: text) }
            do { _ = try SourceSpecification(parsing: text) } catch { #expect(error.description == message) }
        }
    }
}
