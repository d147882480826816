import Synchronization
import Testing
import CapnWebConformance
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
@testable import CapnWebCore

/// A main object for release tests. `hang` suspends until its task is cancelled; `gate`
/// suspends until the test opens it (or its task is cancelled) and then answers `{"n": 7}`;
/// `echo` answers its argument at once. It counts the `hang` and `gate` calls running and the
/// ones cancelled.
final class ReleaseAPI: RpcTarget {
    private struct Counts {
        var running = 0
        var started = 0
        var cancelled = 0
        var open = false
    }

    private let counts = Mutex(Counts())

    var running: Int { counts.withLock { $0.running } }
    var started: Int { counts.withLock { $0.started } }
    var cancelled: Int { counts.withLock { $0.cancelled } }

    /// Lets every `gate` call answer.
    func open() {
        counts.withLock { $0.open = true }
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "echo":
            return arguments.value(at: 0)
        case "hang", "gate":
            counts.withLock {
                $0.running += 1
                $0.started += 1
            }
            defer { counts.withLock { $0.running -= 1 } }
            do {
                if method == "hang" {
                    while true { try await Task.sleep(for: .seconds(3600)) }
                }
                while !counts.withLock({ $0.open }) {
                    try await Task.sleep(for: .milliseconds(5))
                }
            } catch {
                counts.withLock { $0.cancelled += 1 }
                throw error
            }
            return .object([.init("n", .integer(7))])
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

@Suite("Released calls")
struct ReleasedCallTests {
    /// A server on one end of an in-memory pair, registered with `peers`, with a raw peer on the
    /// other.
    private static func rawPair(_ peers: CheckedPeers) -> (server: RpcSession<Any>, serverEnd: InMemoryTransport, peer: RawPeer, api: ReleaseAPI) {
        let (a, b) = InMemoryTransport.makePair()
        let api = ReleaseAPI()
        let server = peers.startServer(transport: b, main: api)
        return (server, b, RawPeer(a), api)
    }

    /// Waits until the server runs the peer's first call and holds its export: the target
    /// starts before the push's export is stored, so the one alone does not show the other.
    private static func callRunning(_ server: RpcSession<Any>, _ api: ReleaseAPI) async throws {
        try await waitUntil("the server to run the call and hold its export") {
            api.running == 1 && server.getStats() == RpcStats(imports: 1, exports: 2)
        }
    }

    /// Sends `echo(text)` as push `id` with its pull and waits for the answer: every frame sent
    /// before it has been handled by then.
    private static func roundTrip(_ peer: RawPeer, id: Int, _ text: String) async throws {
        try peer.send(#"["push",["pipeline",0,["echo"],["\#(text)"]]]"#)
        try peer.send(#"["pull",\#(id)]"#)
        #expect(await peer.expect([#"["resolve",\#(id),"\#(text)"]"#]) == [])
    }

    @Test("cancelling the task awaiting a call releases its result and cancels the server's running target")
    func cancelledAwaitCancelsTheTarget() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let api = ReleaseAPI()
            _ = peers.startServer(transport: b, main: api)
            let client = peers.startClient(transport: a)
            let waiting = Task {
                let _: String = try await client.api.hang()
            }
            try await waitUntil("the server to run the call") { api.running == 1 }
            waiting.cancel()
            let outcome = await waiting.result
            guard case .failure(let error) = outcome, case .cancelled? = error as? RpcError else {
                Issue.record("expected cancelled, got \(outcome)")
                return
            }
            try await waitUntil("the server's target to end") { api.running == 0 }
            #expect(api.cancelled == 1)
            let echoed: String = try await client.api.echo("still here")
            #expect(echoed == "still here")
        }
    }

    @Test("a peer releasing a pulled call before its answer cancels the running target, frees the export, and the session goes on")
    func rawReleaseCancelsTheTarget() async throws {
        try await withCheckedPeers { peers in
            let (server, serverEnd, peer, api) = Self.rawPair(peers)
            try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
            try peer.send(#"["pull",1]"#)
            try await Self.callRunning(server, api)
            try peer.send(#"["release",1,1]"#)
            try await waitUntil("the server's target to end") { api.running == 0 }
            #expect(api.cancelled == 1)
            #expect(server.getStats() == RpcStats(imports: 1, exports: 1))
            try await Self.roundTrip(peer, id: 2, "later")
            try peer.send(#"["release",2,1]"#)
            await server.drain()
            // The cancelled call is never answered.
            #expect(await peer.leftovers(markedBy: serverEnd) == [])
        }
    }

    @Test("a released call that a pipelined call still waits on runs on, and the pipelined call gets its answer")
    func pipelinedCallKeepsTheReleasedCallRunning() async throws {
        try await withCheckedPeers { peers in
            let (server, serverEnd, peer, api) = Self.rawPair(peers)
            try peer.send(#"["push",["pipeline",0,["gate"],[]]]"#)
            try peer.send(#"["pull",1]"#)
            try peer.send(#"["push",["pipeline",1,["n"]]]"#)
            try peer.send(#"["pull",2]"#)
            try await waitUntil("the server to run the call") { api.running == 1 }
            try peer.send(#"["release",1,1]"#)
            try await Self.roundTrip(peer, id: 3, "after the release")
            #expect(api.running == 1)
            #expect(api.cancelled == 0)
            api.open()
            #expect(await peer.expect([#"["resolve",2,7]"#]) == [])
            #expect(api.cancelled == 0)
            try peer.send(#"["release",2,1]"#)
            try peer.send(#"["release",3,1]"#)
            await server.drain()
            // The released call itself is not answered.
            #expect(await peer.leftovers(markedBy: serverEnd) == [])
        }
    }

    @Test("a call the peer never pulled runs on when released, so a call made for its effect is not cut short")
    func unpulledReleasedCallRunsOn() async throws {
        try await withCheckedPeers { peers in
            let (server, serverEnd, peer, api) = Self.rawPair(peers)
            try peer.send(#"["push",["pipeline",0,["gate"],[]]]"#)
            try await waitUntil("the server to run the call") { api.running == 1 }
            try peer.send(#"["release",1,1]"#)
            try await Self.roundTrip(peer, id: 2, "after the release")
            #expect(api.running == 1)
            #expect(server.getStats() == RpcStats(imports: 1, exports: 2))
            api.open()
            try await waitUntil("the call to finish") { api.running == 0 }
            #expect(api.cancelled == 0)
            try peer.send(#"["release",2,1]"#)
            await server.drain()
            #expect(await peer.leftovers(markedBy: serverEnd) == [])
        }
    }

    @Test("a release that leaves the export's refcount above zero does not cancel the call; the last one does")
    func partialReleaseKeepsTheCallRunning() async throws {
        try await withCheckedPeers { peers in
            let (server, serverEnd, peer, api) = Self.rawPair(peers)
            try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
            try peer.send(#"["pull",1]"#)
            try await Self.callRunning(server, api)
            // As if the ID had been introduced to the peer twice (this exporter never re-uses an ID,
            // but the protocol allows it): the peer holds two references.
            let core = try #require(server.connection.currentCore())
            let raised = core.state.withLock { state -> Bool in
                guard state.exports[1] != nil else { return false }
                state.exports[1]?.refcount = 2
                return true
            }
            try #require(raised, "the call's export is in the table")
            try peer.send(#"["release",1,1]"#)
            try await Self.roundTrip(peer, id: 2, "after one release")
            #expect(api.running == 1)
            #expect(api.cancelled == 0)
            // The main entry, the call's and the echo's.
            #expect(server.getStats() == RpcStats(imports: 1, exports: 3))
            try peer.send(#"["release",1,1]"#)
            try await waitUntil("the server's target to end") { api.running == 0 }
            #expect(api.cancelled == 1)
            try peer.send(#"["release",2,1]"#)
            await server.drain()
            #expect(await peer.leftovers(markedBy: serverEnd) == [])
        }
    }

    @Test("calls released while they run count against the table limit: pushing and releasing calls that never end aborts the session at the limit, which cancels them")
    func releasedRunningCallsCountAgainstTheTable() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let api = ReleaseAPI()
            var configuration = Configuration()
            configuration.limits.maxTableEntries = 20
            _ = peers.startServer(transport: b, main: api, configuration: configuration)
            let peer = FaultPeer(a)
            for id in 1...40 {
                try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
                try peer.send(#"["release",\#(id),1]"#)
            }
            try await waitUntil("the session's end") { peer.closure != nil }
            #expect(peer.frames.last?.contains("export table is full (20 entries, 19 of them calls released while still running)") == true)
            #expect(api.started == 19)
            try await waitUntil("the released calls to be cancelled") { api.running == 0 }
            #expect(api.cancelled == 19)
        }
    }

    @Test("a released call that finishes no longer counts against the table limit")
    func finishedReleasedCallsStopCounting() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let api = ReleaseAPI()
            var configuration = Configuration()
            configuration.limits.maxTableEntries = 20
            let server = peers.startServer(transport: b, main: api, configuration: configuration)
            let peer = FaultPeer(a)
            for id in 1...15 {
                try peer.send(#"["push",["pipeline",0,["gate"],[]]]"#)
                try peer.send(#"["release",\#(id),1]"#)
            }
            try await waitUntil("the server to run the calls") { api.running == 15 }
            api.open()
            try await waitUntil("the calls to finish") { api.running == 0 }
            // Fifteen more: with the first fifteen still counted they would pass the limit of 20.
            for id in 16...30 {
                try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
                try peer.send(#"["release",\#(id),1]"#)
            }
            try await waitUntil("the server to run the new calls") { api.running == 15 }
            try peer.send(#"["push",["pipeline",0,["echo"],["still here"]]]"#)
            try peer.send(#"["pull",31]"#)
            try await waitUntil("the answer") { peer.frames.contains(#"["resolve",31,"still here"]"#) }
            try peer.send(#"["release",31,1]"#)
            #expect(peer.closure == nil)
            await server.close()
            try await waitUntil("the running calls to be cancelled") { api.running == 0 }
        }
    }

    @Test("a pulled call is still cancelled on release when another push named it and was released unpulled")
    func unpulledAliasReleasedFirst() async throws {
        try await withCheckedPeers { peers in
            let (server, serverEnd, peer, api) = Self.rawPair(peers)
            try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
            try peer.send(#"["pull",1]"#)
            try peer.send(#"["push",["pipeline",1]]"#)
            try await waitUntil("the server to run the call") { api.running == 1 }
            try peer.send(#"["release",2,1]"#)
            try peer.send(#"["release",1,1]"#)
            try await waitUntil("the server's target to end") { api.running == 0 }
            #expect(api.cancelled == 1)
            try await Self.roundTrip(peer, id: 3, "after the releases")
            try peer.send(#"["release",3,1]"#)
            await server.drain()
            #expect(await peer.leftovers(markedBy: serverEnd) == [])
        }
    }
}
