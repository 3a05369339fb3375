import BeaconCore

/// The LE advertising commands a node beacon needs: legacy (Core spec Vol 4 Part E §7.8.5–7.8.9)
/// and extended (§7.8.53–7.8.56), both sending a legacy non-connectable PDU (ADV_NONCONN_IND), the
/// kind every scanner hears. A controller that scans with the extended commands must advertise with
/// them too: once one family is used, the other is refused until a reset (`ControllerSetup`).
extension HCICommand {
    /// The advertising set the extended commands use. Not 0 and not the low handles: BlueZ's kernel
    /// uses 0 for its own advertising and 1, 2, … for the instances bluetoothd adds.
    public static let nodeBeaconAdvertisingHandle: UInt8 = 0x50

    /// Own address public, all three primary channels, no filter.
    public static func leSetAdvertisingParameters(intervalUnits: UInt16) -> HCICommand {
        let interval = littleEndian(UInt64(intervalUnits), count: 2)
        return HCICommand(
            opcode: opcode(ogf: 0x08, ocf: 0x0006),
            // min, max, type 0x03 ADV_NONCONN_IND, own address public, peer address type and
            // address (unused), channel map 37/38/39, filter policy none.
            parameters: interval + interval + [0x03, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [0x07, 0x00],
            name: "HCI_LE_Set_Advertising_Parameters"
        )
    }

    /// Answers the power the controller advertises at, dBm (a signed byte after the status).
    public static let leReadAdvertisingPhysicalChannelTxPower = HCICommand(
        opcode: opcode(ogf: 0x08, ocf: 0x0007), name: "HCI_LE_Read_Advertising_Physical_Channel_Tx_Power")

    /// Length, then the data padded with zeros to 31 bytes (the command's fixed size).
    public static func leSetAdvertisingData(_ data: [UInt8]) -> HCICommand {
        let data = Array(data.prefix(31))
        return HCICommand(
            opcode: opcode(ogf: 0x08, ocf: 0x0008),
            parameters: [UInt8(data.count)] + data + [UInt8](repeating: 0, count: 31 - data.count),
            name: "HCI_LE_Set_Advertising_Data"
        )
    }

    public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        HCICommand(opcode: opcode(ogf: 0x08, ocf: 0x000A), parameters: [enable ? 0x01 : 0x00], name: "HCI_LE_Set_Advertising_Enable")
    }

    /// One set, legacy PDU non-connectable non-scannable (properties 0x0010), on LE 1M; the answer
    /// carries the power the controller chose (a signed byte after the status).
    public static func leSetExtendedAdvertisingParameters(
        handle: UInt8 = nodeBeaconAdvertisingHandle, intervalUnits: UInt32
    ) -> HCICommand {
        let interval = littleEndian(UInt64(intervalUnits), count: 3)
        var parameters: [UInt8] = [handle, 0x10, 0x00] + interval + interval
        // Channels 37/38/39, own address public, peer address type and address (unused), no filter.
        parameters += [0x07, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [0x00]
        // TX power: no preference (0x7F); primary PHY LE 1M; secondary max skip 0, PHY LE 1M;
        // SID 0; no scan request notifications.
        parameters += [0x7F, 0x01, 0x00, 0x01, 0x00, 0x00]
        return HCICommand(opcode: opcode(ogf: 0x08, ocf: 0x0036), parameters: parameters,
                          name: "HCI_LE_Set_Extended_Advertising_Parameters")
    }

    /// The whole data in one operation (0x03 complete), the controller not to fragment it (0x01).
    public static func leSetExtendedAdvertisingData(handle: UInt8 = nodeBeaconAdvertisingHandle, _ data: [UInt8]) -> HCICommand {
        let data = Array(data.prefix(251))
        return HCICommand(opcode: opcode(ogf: 0x08, ocf: 0x0037), parameters: [handle, 0x03, 0x01, UInt8(data.count)] + data,
                          name: "HCI_LE_Set_Extended_Advertising_Data")
    }

    /// Enables or disables this one set (others, bluetoothd's, are left as they are), with no
    /// duration and no event limit.
    public static func leSetExtendedAdvertisingEnable(_ enable: Bool, handle: UInt8 = nodeBeaconAdvertisingHandle) -> HCICommand {
        HCICommand(opcode: opcode(ogf: 0x08, ocf: 0x0039), parameters: [enable ? 0x01 : 0x00, 0x01, handle, 0x00, 0x00, 0x00],
                   name: "HCI_LE_Set_Extended_Advertising_Enable")
    }
}

/// What to advertise besides scanning: a node beacon every `intervalUnits` (0.625 ms units).
public struct AdvertisingRequest: Hashable, Sendable {
    public var beacon: NodeBeacon
    /// 0x00A0 (100 ms, the least a legacy non-connectable advert may use on a 4.x controller) …
    /// 0x4000 (10.24 s).
    public var intervalUnits: UInt16

    public init(beacon: NodeBeacon, intervalUnits: UInt16) {
        self.beacon = beacon
        self.intervalUnits = min(max(intervalUnits, Self.intervalUnitRange.lowerBound), Self.intervalUnitRange.upperBound)
    }

    /// The interval in seconds, converted to units.
    public init(beacon: NodeBeacon, interval seconds: Double) {
        self.init(beacon: beacon, intervalUnits: UInt16(clamping: Int((seconds / 0.000625).rounded())))
    }

    public static let intervalUnitRange: ClosedRange<UInt16> = 0x00A0...0x4000
    /// `intervalUnitRange` in seconds.
    public static let intervalRange: ClosedRange<Double> = 0.1...10.24

    /// The transmit power assumed when the controller does not say (most controllers' default).
    public static let assumedTransmitPower = 0
}

/// How the node beacon's set-up ended; scanning goes on either way.
public enum AdvertisingOutcome: Hashable, Sendable {
    /// Advertising, at the power the controller said (nil: it did not say, `assumedTransmitPower`
    /// was assumed), with this measured power in the advert.
    case advertising(transmitPower: Int?, measuredPower: Int8)
    /// The controller refused a command (most often Command Disallowed: it cannot advertise while it scans).
    case refused(ControllerSetupError)
}

extension AdvertisingOutcome {
    /// `advertising` or `refused`, as the agent's info and telemetry say it.
    public var stateName: String {
        switch self {
        case .advertising: "advertising"
        case .refused: "refused"
        }
    }
}
