import Synchronization
import Testing
import CapnWebConformance
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
@testable import CapnWebCore

@Suite("Bytes held for results nobody pulled")
struct UnpulledBudgetTests {
    /// A push of `echo` with a string argument of `length` characters.
    static func echoPush(_ length: Int) -> String {
        #"["push",["pipeline",0,["echo"],[""# + String(repeating: "x", count: length) + #""]]]"#
    }

    static var limits: Configuration {
        var configuration = Configuration()
        configuration.limits.maxUnpulledBytes = 64 * 1024
        return configuration
    }

    @Test("a peer that pushes large values and never pulls them is aborted at the byte budget")
    func unpulledPushesAbort() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            _ = peers.startServer(transport: b, main: FaultAPI(), configuration: Self.limits)
            let peer = RawPeer(a)
            for _ in 0..<100 { try? peer.send(Self.echoPush(1000)) }
            let abort = try await waitFor("the abort") { peer.takeAll().first { $0.hasPrefix(#"["abort""#) } }
            #expect(abort.contains("never pulled"))
            #expect(abort.contains("65536"))
        }
    }

    @Test("pulled and released pushes give their bytes back, so a long session stays within the budget")
    func pulledPushesDoNotCount() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            _ = peers.startServer(transport: b, main: FaultAPI(), configuration: Self.limits)
            let peer = RawPeer(a)
            // 200 pushes of 1 KB (three times the budget), each pulled or released at once.
            for id in 1...200 {
                try peer.send(Self.echoPush(1000))
                if id % 2 == 0 {
                    try peer.send(#"["pull",\#(id)]"#)
                } else {
                    try peer.send(#"["release",\#(id),1]"#)
                }
            }
            try peer.send(#"["push",["pipeline",0,["square"],[3]]]"#)
            try peer.send(#"["pull",201]"#)
            _ = try await waitFor("the last answer") { peer.takeAll().first { $0.hasPrefix(#"["resolve",201,"#) } }
            try peer.send(#"["release",201,1]"#)
            for id in stride(from: 2, through: 200, by: 2) { try peer.send(#"["release",\#(id),1]"#) }
        }
    }

    @Test("results of pushes nobody pulled count toward the byte budget: small pushes of calls that make large values abort at the budget", arguments: ["big", "bigLater"])
    func unpulledResultsCount(_ method: String) async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            _ = peers.startServer(transport: b, main: LargeValueAPI(), configuration: Self.limits)
            let peer = RawPeer(a)
            // Five pushes of about 40 bytes each, whose results hold 20 KB each: 100 KB unpulled.
            for _ in 0..<5 { try peer.send(#"["push",["pipeline",0,["\#(method)"],[20000]]]"#) }
            let abort = try await waitFor("the abort") { peer.takeAll().first { $0.hasPrefix(#"["abort""#) } }
            #expect(abort.contains("never pulled"))
            #expect(abort.contains("65536"))
        }
    }

    @Test("results that were pulled, or released unpulled, give their bytes back", arguments: ["big", "bigLater"])
    func pulledResultsDoNotCount(_ method: String) async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: LargeValueAPI(), configuration: Self.limits)
            let peer = RawPeer(a)
            // Twenty results of 20 KB (six times the budget), each pulled or released at once.
            for id in 1...20 {
                try peer.send(#"["push",["pipeline",0,["\#(method)"],[20000]]]"#)
                if id % 2 == 0 {
                    try peer.send(#"["pull",\#(id)]"#)
                } else {
                    try peer.send(#"["release",\#(id),1]"#)
                }
            }
            try peer.send(#"["push",["pipeline",0,["big"],[3]]]"#)
            try peer.send(#"["pull",21]"#)
            _ = try await waitFor("the last answer") { peer.takeAll().first { $0.hasPrefix(#"["resolve",21,"#) } }
            try peer.send(#"["release",21,1]"#)
            for id in stride(from: 2, through: 20, by: 2) { try peer.send(#"["release",\#(id),1]"#) }
            try await waitUntil("the server's tables to empty") { server.getStats() == RpcStats(imports: 1, exports: 1) }
            let core = try #require(server.connection.currentCore())
            #expect(core.state.withLock { $0.unpulledBytes } == 0)
        }
    }
}
