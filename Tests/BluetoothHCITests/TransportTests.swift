import Testing
import TestSupport
@testable import BluetoothHCI

#if canImport(Glibc)
import Glibc
#endif

@Suite struct TransportTests {
    @Test func uartCarriesBytesBothWaysOverAPseudoTerminal() throws {
        let pty = try PseudoTerminal()
        let transport = try UARTTransport(settings: .init(path: pty.devicePath, baudRate: 1_000_000))
        defer { transport.close() }

        // HCI_Reset as H4: indicator 0x01, opcode 0x0C03 little-endian, no parameters.
        try transport.send([0x01, 0x03, 0x0C, 0x00])
        #expect(pty.read(count: 4) == [0x01, 0x03, 0x0C, 0x00])

        // Command Complete for it, split in two writes as a slow line would deliver it.
        pty.write([0x04, 0x0E, 0x04])
        pty.write([0x01, 0x03, 0x0C, 0x00])
        var received: [UInt8] = []
        while received.count < 7 {
            let chunk = try transport.receive(timeout: 5)
            #expect(!chunk.isEmpty)
            if chunk.isEmpty { break }
            received += chunk
        }
        #expect(received == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    @Test func uartReportsAVanishedDevice() throws {
        let pty = try PseudoTerminal()
        let transport = try UARTTransport(settings: .init(path: pty.devicePath))
        defer { transport.close() }
        pty.closeController()
        #expect(throws: HCITransportError.self) { _ = try transport.receive(timeout: 5) }
        do {
            _ = try transport.receive(timeout: 5)
        } catch {
            #expect(error.code == .deviceVanished)
        }
    }

    @Test func uartNamesAMissingDeviceAndAnUnsupportedSpeed() {
        do {
            _ = try UARTTransport(settings: .init(path: "/dev/ttyNOPE9"))
            Issue.record("opened a device that does not exist")
        } catch {
            #expect(error.code == .deviceNotFound)
            #expect(error.description.hasPrefix("open /dev/ttyNOPE9: no such device"))
        }
        do {
            _ = try UARTTransport(settings: .init(path: "/dev/null", baudRate: 12345))
            Issue.record("accepted 12345 baud")
        } catch {
            #expect(error.description == "open /dev/null at 12345 baud: the device refused the setting")
        }
    }

    @Test func uartRefusesAFileThatIsNotATerminal() {
        do {
            _ = try UARTTransport(settings: .init(path: "/dev/null"))
            Issue.record("opened /dev/null as a serial line")
        } catch {
            #expect(error.code == .configurationFailed)
            #expect(error.description.contains("not a terminal"))
        }
    }

    /// This kernel has no AF_BLUETOOTH: opening the socket must say so, not crash or hang.
    /// On a machine with Bluetooth and no hci0 (or no privileges) the error must name that instead.
    @Test func hciSocketOpenFailsWithAClearError() {
        do {
            let transport = try HCISocketTransport(deviceID: 0)
            transport.close()
        } catch {
            #expect([.bluetoothUnsupported, .deviceNotFound, .permissionDenied].contains(error.code))
            #expect(error.description.hasPrefix("open hci0: "))
        }
        #expect(HCISocketTransport.openError(EAFNOSUPPORT, operation: "open hci0").description
            == "open hci0: this kernel has no Bluetooth support (AF_BLUETOOTH) (Address family not supported by protocol)")
    }
}
