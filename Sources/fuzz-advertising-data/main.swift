import BeaconCore

/// libFuzzer entry: any bytes as advertising data, through every accessor and beacon decoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAdvertisingData(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let advertising = AdvertisingData(bytes)
    _ = advertising.flags
    _ = advertising.localName
    _ = advertising.serviceUUIDs16
    _ = advertising.serviceUUIDs32
    _ = advertising.serviceUUIDs128
    _ = advertising.serviceData
    _ = advertising.manufacturerData
    _ = advertising.txPowerLevel
    _ = advertising.appearance
    let address = BluetoothAddress(rawValue: 0xC4A1_B2C3_D4E5)
    for beacon in BeaconDecoder.decodeAll(advertisingData: bytes[...]) {
        _ = beacon.fields(address: address)
        _ = beacon.id(address: address)
    }
    _ = BeaconDecoder.decode(advertisingData: bytes)
    return 0
}
