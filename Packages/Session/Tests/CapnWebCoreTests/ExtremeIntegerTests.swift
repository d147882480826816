import Synchronization
import RpcTransportTesting
import Testing
import CapnWebTestSupport
import RpcTransport
@testable import CapnWebCore

/// IDs, indexes, counts and variable numbers at the ends of the 64-bit range, sent by a raw
/// peer: each gets a typed answer or a typed abort, never a trap.
@Suite("Extreme integers from the wire")
struct ExtremeIntegerTests {
    static let max = "9223372036854775807"
    static let min = "-9223372036854775808"

    /// Sends `push` and `pull` for export `id` and returns the answer frame.
    private func call(_ peer: FaultPeer, _ push: String, id: Int) async throws -> String? {
        let before = peer.frames.count
        try peer.send(#"["push",\#(push)]"#)
        try peer.send(#"["pull",\#(id)]"#)
        _ = await waitUntil { peer.frames.count > before }
        return peer.frames.count > before ? peer.frames[before] : nil
    }

    @Test("pulls and releases of the extreme IDs, and releases of extreme counts, abort the session with a typed error", arguments: [
        #"["pull",\#(max)]"#,
        #"["pull",\#(min)]"#,
        #"["release",\#(max),1]"#,
        #"["release",\#(min),1]"#,
        #"["release",0,\#(max)]"#,
        #"["release",0,\#(min)]"#,
        #"["push",["pipeline",\#(min),["x"]]]"#,
        #"["push",["pipeline",0,["echo"],[["import",\#(max)]]]]"#,
        #"["push",["pipeline",0,["echo"],[["pipe",\#(min)]]]]"#,
        #"["push",["remap",\#(max),[],[],[]]]"#,
    ])
    func extremeIDsAbort(_ frame: String) async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            _ = peers.startServer(transport: b, main: FaultAPI())
            let peer = FaultPeer(a)
            try peer.send(frame)
            try await waitUntil("the session's end") { peer.closure != nil }
            #expect(peer.closure?.code == .applicationError)
            #expect(peer.frames.last?.hasPrefix(#"["abort",["error","#) == true)
        }
    }

    @Test("a map instruction naming variable Int64.min or Int64.max rejects with a TypeError and the session goes on")
    func extremeMapVariables() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: FaultAPI())
            let peer = FaultPeer(a)
            #expect(try await call(peer, #"["pipeline",0,["echo"],[5]]"#, id: 1) == #"["resolve",1,5]"#)
            let low = try await call(peer, #"["remap",1,[],[],[["pipeline",\#(Self.min)]]]"#, id: 2)
            #expect(low == #"["reject",2,["error","TypeError","map instruction refers to unknown variable \#(Self.min)"]]"#)
            let high = try await call(peer, #"["remap",1,[],[],[["pipeline",\#(Self.max)]]]"#, id: 3)
            #expect(high == #"["reject",3,["error","TypeError","map instruction refers to unknown variable \#(Self.max)"]]"#)
            // A settlement of an import that does not exist is ignored, as the reference does.
            try peer.send(#"["resolve",\#(Self.min),1]"#)
            #expect(try await call(peer, #"["pipeline",0,["square"],[4]]"#, id: 4) == #"["resolve",4,16]"#)
            for id in 1...4 { try peer.send(#"["release",\#(id),1]"#) }
            #expect(await waitUntil { server.getStats() == .mainOnly })
            #expect(peer.closure == nil)
        }
    }

    @Test("array indexes at both ends of the range read as undefined, and one step further rejects as the reference does")
    func extremeIndexes() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: FaultAPI())
            let peer = FaultPeer(a)
            #expect(try await call(peer, #"["pipeline",0,["echo"],[[[1,2]]]]"#, id: 1) == #"["resolve",1,[[1,2]]]"#)
            #expect(try await call(peer, #"["pipeline",1,[\#(Self.max)]]"#, id: 2) == #"["resolve",2,["undefined"]]"#)
            #expect(try await call(peer, #"["pipeline",1,[\#(Self.min)]]"#, id: 3) == #"["resolve",3,["undefined"]]"#)
            let further = try await call(peer, #"["pipeline",1,[\#(Self.min),\#(Self.max)]]"#, id: 4)
            #expect(further == #"["reject",4,["error","TypeError","Cannot read properties of undefined (reading '\#(Self.max)')"]]"#)
            for id in 1...4 { try peer.send(#"["release",\#(id),1]"#) }
            #expect(await waitUntil { server.getStats() == .mainOnly })
            #expect(peer.closure == nil)
        }
    }

    @Test("a stub introduced as often as its count can hold aborts the session instead of overflowing the count")
    func introductionCountOverflow() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let api = FaultAPI()
            let server = peers.startServer(transport: b, main: api)
            let peer = FaultPeer(a)
            // The running `hang` call holds the stub, so its import entry stays.
            try peer.send(#"["push",["pipeline",0,["hang"],[["export",-1]]]]"#)
            try await waitUntil("the server to run the call") { api.hangsStarted.all == [true] }
            let core = try #require(server.connection.currentCore())
            core.state.withLock { $0.imports[-1]?.introductions = .max }
            try peer.send(#"["push",["pipeline",0,["echo"],[["export",-1]]]]"#)
            try await waitUntil("the session's end") { peer.closure != nil }
            #expect(peer.frames.last?.contains("introduced more times than can be counted") == true)
        }
    }
}
