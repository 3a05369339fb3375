/// One advertisement as the controller reported it: the value every later stage consumes.
///
/// Built from either the legacy LE Advertising Report (subevent 0x02) or the LE Extended
/// Advertising Report (subevent 0x0D); fields only the extended report carries are nil for legacy.
/// `data` shares storage with the event bytes, so decoding copies nothing.
public struct AdvertisingReport: Sendable, Hashable {
    /// The advertiser's address (all zero for anonymous extended advertising).
    public var address: BluetoothAddress
    /// Public, random, or an identity address the controller resolved.
    public var addressType: AdvertisingAddressType
    /// The PDU kind: connectable, scannable, directed, scan response, legacy.
    public var eventType: AdvertisingEventType
    /// Received signal strength in dBm; nil when the controller said "not available" (127).
    public var rssi: Int8?
    /// The advertiser's transmit power in dBm (extended reports); nil when not available (127).
    public var txPower: Int8?
    /// PHY of the primary advertising channel (legacy reports: always LE 1M).
    public var primaryPHY: AdvertisingPHY
    /// PHY of the secondary channel; nil when no packets were sent there (0x00, and legacy).
    public var secondaryPHY: AdvertisingPHY?
    /// Advertising set id 0…15; nil when there is none (0xFF, and legacy).
    public var advertisingSID: UInt8?
    /// Periodic advertising interval in units of 1.25 ms; nil when there is none (0).
    public var periodicAdvertisingInterval: UInt16?
    /// The address a directed advertisement was aimed at (extended, directed only).
    public var directAddress: BluetoothAddress?
    /// The kind of `directAddress`.
    public var directAddressType: AdvertisingAddressType?
    /// Advertising data (AD structures), or scan response data for scan responses.
    public var data: ArraySlice<UInt8>
    /// Complete, or a fragment still to be reassembled, or cut short by the controller.
    public var dataStatus: AdvertisingDataStatus

    /// Creates a report; the decoders make them, tests and the simulator do too.
    public init(
        address: BluetoothAddress,
        addressType: AdvertisingAddressType,
        eventType: AdvertisingEventType,
        rssi: Int8?,
        txPower: Int8? = nil,
        primaryPHY: AdvertisingPHY = .le1M,
        secondaryPHY: AdvertisingPHY? = nil,
        advertisingSID: UInt8? = nil,
        periodicAdvertisingInterval: UInt16? = nil,
        directAddress: BluetoothAddress? = nil,
        directAddressType: AdvertisingAddressType? = nil,
        data: ArraySlice<UInt8>,
        dataStatus: AdvertisingDataStatus? = nil
    ) {
        self.address = address
        self.addressType = addressType
        self.eventType = eventType
        self.rssi = rssi
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.directAddress = directAddress
        self.directAddressType = directAddressType
        self.data = data
        self.dataStatus = dataStatus ?? eventType.dataStatus
    }
}
