import Foundation
import Testing
import TestSupport

/// `presence-agent scan --suggest` as a new user runs it on the real capture: no line per report,
/// the config/beacons entries at the end, the shared identity flagged, the command's exit 0.
@Suite struct ScanSuggestCommandTests {
    @Test func suggestPrintsTheEntriesAndFlagsTheSharedIdentity() throws {
        let capture = try RecordedData.path(RecordedData.horizonCapture)
        let result = try ToolRunner.run(
            try BuildProducts.executable(named: "presence-agent"), ["scan", "--source", "btsnoop:" + capture, "--suggest"],
            separateErrors: true)
        #expect(result.status == 0)
        #expect(result.errors == "")
        let output = result.output
        #expect(output.hasPrefix("# btsnoop:\(capture): 412 adverts, 2 beacons by identity, strongest first.\n"))
        #expect(output.contains("\nbeacons:\n"))
        #expect(output.contains("- { beacon: ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207, id: "))
        #expect(output.contains("# WARNING: 3 devices send this one identity"))
        #expect(output.contains("mosquitto_pub -h BROKER -u operator -P PASSWORD -q 1 -r -t presence/config/beacons \\\n  -m '{\"revision\":1,\"beacons\":["))
        // Not one line per report.
        #expect(!output.contains("scan_rsp"))
    }
}
