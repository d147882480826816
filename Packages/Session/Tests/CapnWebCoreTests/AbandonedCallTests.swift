import Testing
import CapnWebConformance
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
import CapnWebDemo
@testable import CapnWebCore

@Suite("Abandoned calls")
struct AbandonedCallTests {
    @Test("calls still running when the peer goes away are cancelled, pulled or not")
    func runningCallsEndWithTheSession() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let api = TestAPI()
            _ = peers.startServer(transport: b, main: api)
            let peer = RawPeer(a)
            let calls = 1000
            for id in 1...calls {
                try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
                if id % 2 == 0 { try peer.send(#"["pull",\#(id)]"#) }
            }
            try await waitUntil("every call to start") { api.hangsStarted == calls }
            #expect(api.hangsRunning == calls)
            await a.close()
            try await waitUntil("every call to end") { api.hangsRunning == 0 }
        }
    }

    @Test("a raw peer releasing the import of its unanswered, pulled hang() ends the conformance API's running call at once")
    func rawReleaseEndsTheRunningHang() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let api = TestAPI()
            let server = peers.startServer(transport: b, main: api)
            let peer = RawPeer(a)
            // What the reference client sends when a pending promise is disposed: a release of the
            // call's import, before any answer.
            try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
            try peer.send(#"["pull",1]"#)
            try await waitUntil("the call to start") { api.hangsRunning == 1 }
            try peer.send(#"["release",1,1]"#)
            try await waitUntil("the running call to end") { api.hangsRunning == 0 }
            #expect(api.hangsStarted == 1)
            try await waitUntil("the server's tables to empty") { server.getStats() == RpcStats(imports: 1, exports: 1) }
            // The session goes on, and the released call is never answered.
            try peer.send(#"["push",["pipeline",0,["square"],[3]]]"#)
            try peer.send(#"["pull",2]"#)
            #expect(await peer.expect([#"["resolve",2,9]"#]) == [])
            try peer.send(#"["release",2,1]"#)
            await server.drain()
            #expect(await peer.leftovers(markedBy: b) == [])
        }
    }

    @Test("a call the peer released while it ran, never pulled, is cancelled when the session ends")
    func releasedRunningCallsEndWithTheSession() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let api = TestAPI()
            let server = peers.startServer(transport: b, main: api)
            let peer = RawPeer(a)
            try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
            try peer.send(#"["release",1,1]"#)
            try await waitUntil("the call to start") { api.hangsStarted == 1 }
            try await waitUntil("the release to take the call out of the table") {
                server.getStats() == RpcStats(imports: 1, exports: 1)
            }
            // Released but not cancelled: a call made for its effect runs on while the session does.
            #expect(api.hangsRunning == 1)
            await a.close()
            try await waitUntil("the released call to end with the session") { api.hangsRunning == 0 }
        }
    }
}
