import BeaconCore
import PresenceAggregator
import TestSupport
import Testing

/// Sites that share a broker and a Home Assistant get discovery ids of their own; the two live
/// aggregators on one broker are in IntegrationTests/Aggregator/MultiSiteServiceTests.swift.
@Suite struct MultiSiteTests {
    /// The site part of discovery ids is one-to-one: roots that differ only by `/` against `_`
    /// get different ids, and a root without `_` keeps its readable form.
    @Test func siteIDsAreOneToOne() {
        let roots = ["presence", "hq/presence", "hq_presence", "lab/presence", "a_/b", "a/_b", "a__b", "a/b/c", "a_b/c", "a/b_c"]
        let ids = roots.map { HomeAssistantDiscovery.siteID(root: $0) }
        #expect(Set(ids).count == roots.count, "\(ids)")
        #expect(HomeAssistantDiscovery.siteID(root: "presence") == "beaconpresence_presence")
        #expect(HomeAssistantDiscovery.siteID(root: "hq/presence") == "beaconpresence_hq_presence")
        #expect(HomeAssistantDiscovery.siteID(root: "hq_presence") == "beaconpresence_hq_Upresence")
        // Discovery's node id allows only these characters.
        for id in ids { #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) }
    }
}
