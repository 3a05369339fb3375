import CBluetooth

#if canImport(Glibc)
import Glibc
#endif

/// A BlueZ raw HCI socket (`hci0`): the only file that touches libbluetooth.
///
/// Reviewed against BlueZ 5.66's `hci.h`/`hci_lib.h`: a raw socket bound to one adapter reads and
/// writes whole packets that start with the H4 packet-type byte, exactly what `hci_send_cmd` writes,
/// so the command loop, setup and decoding above are the ones the UART path uses. We do not call
/// `hci_send_req`/`hci_le_set_scan_*` (PITFALLS.md: they read at most 10 events while waiting, and
/// a busy scan makes them time out). The socket's filter is saved at open and restored at close,
/// so other users of the adapter see it as they left it.
///
/// Needs CAP_NET_RAW (else the kernel masks LE Meta events out without an error) and CAP_NET_ADMIN.
/// This kernel has no Bluetooth, so only the error path runs in tests.
public final class HCISocketTransport: HCITransport {
    public let deviceID: Int
    private let channel: FileDescriptorChannel
    private var savedFilter = hci_filter()
    private var filterSaved = false

    public init(deviceID: Int) throws(HCITransportError) {
        self.deviceID = deviceID
        let operation = "open hci\(deviceID)"
        let descriptor = hci_open_dev(Int32(deviceID))
        guard descriptor >= 0 else {
            throw HCISocketTransport.openError(errno, operation: operation)
        }
        channel = FileDescriptorChannel(descriptor: descriptor, name: "hci\(deviceID)")
        // Non-blocking, so the read loop waits in poll with a timeout and can stop.
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if bp_hci_get_filter(descriptor, &savedFilter) == 0 { filterSaved = true }
        guard bp_hci_set_scan_filter(descriptor) == 0 else {
            let code = errno
            channel.close()
            throw HCITransportError(code == EPERM ? .permissionDenied : .configurationFailed,
                                    operation: "\(operation): set socket filter", errno: code)
        }
    }

    public func send(_ packet: [UInt8]) throws(HCITransportError) {
        try channel.write(packet)
    }

    public func receive(timeout: Double) throws(HCITransportError) -> [UInt8] {
        try channel.read(timeout: timeout)
    }

    public func close() {
        if filterSaved, channel.descriptor >= 0 {
            _ = bp_hci_set_filter(channel.descriptor, &savedFilter)
            filterSaved = false
        }
        channel.close()
    }

    deinit { close() }

    static func openError(_ code: Int32, operation: String) -> HCITransportError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT: return HCITransportError(.bluetoothUnsupported, operation: operation, errno: code)
        case ENODEV: return HCITransportError(.deviceNotFound, operation: operation, errno: code)
        case EPERM, EACCES: return HCITransportError(.permissionDenied, operation: operation, errno: code)
        default: return HCITransportError(.ioFailed, operation: operation, errno: code)
        }
    }
}
