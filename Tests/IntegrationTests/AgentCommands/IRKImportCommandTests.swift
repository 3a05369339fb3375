import Foundation
import Testing
import TestSupport

/// `presence-agent irk import` as an operator runs it after pairing a phone with bluetoothctl:
/// BlueZ's bond store laid out as BlueZ writes it, the entry printed for `config/beacons`.
@Suite struct IRKImportCommandTests {
    /// The Core spec's sample key as BlueZ stores it: the bytes least significant first, in hex.
    static let bluezInfo = """
        [General]
        Name=Alice's iPhone
        AddressType=public
        SupportedTechnologies=LE;
        Trusted=false
        Blocked=false

        [IdentityResolvingKey]
        Key=9B7D390AA610103405ADC857A33402EC

        [LongTermKey]
        Key=47972653016AF21CF7C38A192E3A4930
        Authenticated=1
        EncSize=16
        EDiv=0
        Rand=0

        """

    func bondStore(info: String) throws -> String {
        let root = NSTemporaryDirectory() + "bluez-\(UUID().uuidString)"
        let device = root + "/00:1A:7D:DA:71:13/F0:99:B6:12:34:56"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try info.write(toFile: device + "/info", atomically: true, encoding: .utf8)
        return root
    }

    func run(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(try BuildProducts.executable(named: "presence-agent"), ["irk", "import"] + arguments, separateErrors: true)
    }

    @Test func aPairedPhonesKeyBecomesItsEntryInTheSpecsOrder() throws {
        let store = try bondStore(info: Self.bluezInfo)
        let result = try run(["f0:99:b6:12:34:56", "--id", "alice-phone", "--bluez-dir", store])
        #expect(result.status == 0)
        #expect(result.output == #"{"irk":"ec0234a357c8ad05341010a60a397d9b","id":"alice-phone","name":"Alice's iPhone"}"# + "\n")
        #expect(result.errors.contains(#""beacon":"irk-54903897edb0""#))
    }

    @Test func theInfoFileItselfAndANameOfOurOwn() throws {
        let store = try bondStore(info: Self.bluezInfo)
        let result = try run([store + "/00:1A:7D:DA:71:13/F0:99:B6:12:34:56/info", "--id", "alice-watch", "--name", "Alice's watch"])
        #expect(result.output == #"{"irk":"ec0234a357c8ad05341010a60a397d9b","id":"alice-watch","name":"Alice's watch"}"# + "\n")
    }

    @Test func aBondWithoutAKeyOrWithAMalformedOneIsAClearError() throws {
        let noKey = try bondStore(info: "[General]\nName=Keyboard\n\n[LongTermKey]\nKey=47972653016AF21CF7C38A192E3A4930\n")
        let missing = try run(["F0:99:B6:12:34:56", "--id", "kbd", "--bluez-dir", noKey])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("no [IdentityResolvingKey] section"))
        let short = try bondStore(info: "[IdentityResolvingKey]\nKey=9B7D390AA610103405ADC857A334\n")
        let malformed = try run(["F0:99:B6:12:34:56", "--id", "kbd", "--bluez-dir", short])
        #expect(malformed.status == 2)
        #expect(malformed.errors.contains("[IdentityResolvingKey] Key is not 32 hex digits (28 characters)"))
        #expect(!malformed.errors.contains("9B7D390A"))
        let unpaired = try run(["AA:BB:CC:DD:EE:FF", "--id", "kbd", "--bluez-dir", noKey])
        #expect(unpaired.status == 2)
        #expect(unpaired.errors.contains("no bond for AA:BB:CC:DD:EE:FF"))
    }
}
