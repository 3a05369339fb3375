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
/// Capabilities, as seen on Debian 12's kernel (`.ci/kernel-bluetooth`): CAP_NET_RAW to send the LE
/// scan commands (without it the kernel refuses them with EPERM); CAP_NET_ADMIN only to power a
/// down adapter up (HCIDEVUP), which a node without bluetoothd needs: the kernel powers a new
/// controller off 2 s after setting it up. Every refusal says what to grant or run.
/// The test machine's kernel has no Bluetooth, so only the error path runs in the fast tests.
public final class HCISocketTransport: HCITransport {
    public let deviceID: Int
    private let channel: FileDescriptorChannel
    private var savedFilter = hci_filter()
    private var filterSaved = false
    public private(set) var openingNote: String?

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
                                    operation: "\(operation): set socket filter", errno: code,
                                    advice: code == EPERM ? Self.rawAdvice : nil)
        }
        do {
            try powerUpIfDown()
        } catch {
            channel.close()
            throw error
        }
    }

    /// Grants for CAP_NET_RAW, named in every EPERM from a scan command.
    static let rawAdvice = "the kernel refuses LE scan commands on a raw HCI socket without CAP_NET_RAW: "
        + "grant it in the systemd unit (AmbientCapabilities=CAP_NET_RAW) or on the binary "
        + "(sudo setcap cap_net_raw,cap_net_admin+ep /path/to/presence-agent), or run as root"

    /// An adapter that is down is powered up, as `hciconfig hci0 up` does. HCIDEVUP needs
    /// CAP_NET_ADMIN; rfkill may block it. On an adapter that is up it is asked too: the kernel then
    /// answers EALREADY but first cancels the power-off it schedules 2 s after setting up a new
    /// controller when no bluetoothd has claimed it, which would otherwise cut our setup short.
    private func powerUpIfDown() throws(HCITransportError) {
        let descriptor = channel.descriptor
        let up = bp_hci_dev_is_up(descriptor, Int32(deviceID))
        let result = bp_hci_dev_up(descriptor, Int32(deviceID))
        guard up == 0 else { return }
        let operation = "power up hci\(deviceID)"
        if result == 0 || errno == EALREADY {
            openingNote = "hci\(deviceID) was down; powered it up"
            return
        }
        let code = errno
        switch code {
        case EPERM, EACCES:
            throw HCITransportError(
                .adapterDown, operation: operation, errno: code,
                advice: "powering it up needs CAP_NET_ADMIN (AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN in the unit, "
                    + "or setcap cap_net_raw,cap_net_admin+ep on the binary); or power it on yourself: bluetoothctl power on")
        case ERFKILL:
            throw HCITransportError(
                .blocked, operation: operation, errno: code,
                advice: "unblock it: rfkill unblock bluetooth (then bluetoothctl power on if bluetoothd runs)")
        default:
            throw HCITransportError(.ioFailed, operation: operation, errno: code,
                                    advice: "try bluetoothctl power on, or hciconfig hci\(deviceID) up")
        }
    }

    public func send(_ packet: [UInt8]) throws(HCITransportError) {
        do {
            try channel.write(packet)
        } catch {
            var error = error
            switch error.code {
            case .permissionDenied: error.advice = Self.rawAdvice
            case .adapterDown: error.advice = "the adapter was powered down; it is powered up again on reopen"
            case .blocked: error.advice = "unblock it: rfkill unblock bluetooth"
            default: break
            }
            throw error
        }
    }

    /// An adapter powered down keeps its socket open and silent: only its flags say so.
    public func checkDevice() throws(HCITransportError) {
        guard channel.descriptor >= 0, bp_hci_dev_is_up(channel.descriptor, Int32(deviceID)) == 0 else { return }
        throw HCITransportError(.adapterDown, operation: "hci\(deviceID)", advice: "it is powered up again on reopen")
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
