import Foundation
import RpcTransportTesting
import Testing
import CapnWebTestSupport
import RpcTransport
import CapnWebDemo
@testable import CapnWebCore

/// Values the reference peer sends or accepts that stretch what Swift can hold, and messages it
/// answers with an error instead of aborting: each is sent by a raw peer, gets the reference's
/// answer, and the session goes on.
@Suite("Hostile values")
struct HostileValueTests {
    /// Sends `push` and `pull` for the next export `id` and returns the answer frame.
    private func call(_ peer: FaultPeer, _ push: String, id: Int) async throws -> String? {
        let before = peer.frames.count
        try peer.send(#"["push",\#(push)]"#)
        try peer.send(#"["pull",\#(id)]"#)
        _ = await waitUntil { peer.frames.count > before }
        return peer.frames.count > before ? peer.frames[before] : nil
    }

    /// Checks that the session still answers a call (as export `id`), then releases every
    /// export from 1 through `id` and waits until the tables are back to the main entries.
    private func expectSessionGoesOn(_ peer: FaultPeer, _ server: RpcSession<Any>, nextID id: Int) async throws {
        #expect(try await call(peer, #"["pipeline",0,["square"],[5]]"#, id: id) == #"["resolve",\#(id),25]"#)
        #expect(peer.closure == nil)
        for export in 1...id {
            try peer.send(#"["release",\#(export),1]"#)
        }
        #expect(await waitUntil { server.getStats() == .mainOnly })
    }

    @Test("a string holding a lone surrogate escape arrives with U+FFFD in its place and the session goes on")
    func loneSurrogateArgument() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: FaultAPI())
            let peer = FaultPeer(a)
            let answer = try await call(peer, #"["pipeline",0,["echo"],["a\ud800b\udc00"]]"#, id: 1)
            #expect(answer == "[\"resolve\",1,\"a\u{FFFD}b\u{FFFD}\"]")
            let keyed = try await call(peer, #"["pipeline",0,["echo"],[{"\udbff":"\ud83d\ude00\ud83d"}]]"#, id: 2)
            #expect(keyed == "[\"resolve\",2,{\"\u{FFFD}\":\"😀\u{FFFD}\"}]")
            try await expectSessionGoesOn(peer, server, nextID: 3)
        }
    }

    @Test("an answer holding a lone surrogate escape reaches a Swift caller with U+FFFD in its place")
    func loneSurrogateAnswer() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let client = peers.startClient(transport: a)
            let peer = FaultPeer(b)
            async let answer: String = client.api.echo("x")
            #expect(await waitUntil { peer.frames.contains(#"["pull",1]"#) })
            try peer.send(#"["resolve",1,"\udc00!"]"#)
            #expect(try await answer == "\u{FFFD}!")
            #expect(await waitUntil { peer.frames.contains(#"["release",1,1]"#) })
        }
    }

    @Test("a date JavaScript cannot hold arrives as the invalid date and is answered as [\"date\",null]")
    func outOfRangeDates() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: FaultAPI())
            let peer = FaultPeer(a)
            let dates = #"[["date",1e300],["date",-8640000000000001],["date",8640000000000000],["date",1.9]]"#
            let answer = try await call(peer, #"["pipeline",0,["echo"],[[\#(dates)]]]"#, id: 1)
            #expect(answer == #"["resolve",1,[[["date",null],["date",null],["date",8640000000000000],["date",1]]]]"#)
            try await expectSessionGoesOn(peer, server, nextID: 2)
        }
    }

    @Test("a date beyond the range of a JavaScript Date decodes as no number, like the invalid date")
    func outOfRangeDatePayload() throws {
        #expect(throws: RpcError.self) { try RpcPayload.date(1e300).decode(Double.self) }
        #expect(throws: RpcError.self) { try RpcPayload.date(nil).decode(Double.self) }
        #expect(try RpcPayload.date(5).decode(Double.self) == 5)
        #expect(RpcPayload.date(1e300).description == "new Date(NaN)")
    }

    @Test("a remap with no instructions rejects with the reference's error when it runs, and the session goes on")
    func emptyRemap() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: FaultAPI())
            let peer = FaultPeer(a)
            try peer.send(#"["push",["pipeline",0,["echo"],[[[1,2]]]]]"#)
            let rejected = try await call(peer, #"["remap",1,[],[],[]]"#, id: 2)
            #expect(rejected == #"["reject",2,["error","Error","Invalid empty mapper function."]]"#)
            // Over a value it does not run on, the map gives that value, as the reference's does.
            try peer.send(#"["push",["pipeline",0,["echo"],[[[]]]]]"#)
            #expect(try await call(peer, #"["remap",3,[],[],[]]"#, id: 4) == #"["resolve",4,[[]]]"#)
            try peer.send(#"["push",["pipeline",0,["echo"],[null]]]"#)
            #expect(try await call(peer, #"["remap",5,[],[],[]]"#, id: 6) == #"["resolve",6,null]"#)
            // Over a single value it runs once, and rejects.
            try peer.send(#"["push",["pipeline",0,["echo"],[7]]]"#)
            let once = try await call(peer, #"["remap",7,[],[],[]]"#, id: 8)
            #expect(once == #"["reject",8,["error","Error","Invalid empty mapper function."]]"#)
            try await expectSessionGoesOn(peer, server, nextID: 9)
        }
    }

    @Test("generateFibonacci answers JavaScript numbers: rounded doubles past 2^53 and Infinity past index 1476")
    func fibonacciAsJavaScriptNumbers() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: TestAPI())
            let peer = FaultPeer(a)
            let hundred = try await call(peer, #"["pipeline",0,["generateFibonacci"],[100]]"#, id: 1) ?? ""
            #expect(hundred.hasPrefix(#"["resolve",1,[[0,1,1,2,3,5,8,13,"#))
            #expect(hundred.contains(",5527939700884757,8944394323791464,14472334024676220,"))
            #expect(String(hundred.suffix(120)).hasSuffix(",83621143489848430000,135301852344706760000,218922995834555200000]]]"))
            let many = try await call(peer, #"["pipeline",0,["generateFibonacci"],[1500]]"#, id: 2) ?? ""
            let tail = String(many.suffix(23 * 8 + 60))
            #expect(tail.contains(#",8.077637632156222e+307,1.3069892237633987e+308,["inf"],"#))
            #expect(tail.hasSuffix(#"["inf"],["inf"]]]]"#))
            #expect(many.components(separatedBy: #"["inf"]"#).count - 1 == 1500 - 1477)
            #expect(!many.contains("9223372036854776000"))
            try await expectSessionGoesOn(peer, server, nextID: 3)
        }
    }
}
