import Synchronization
import Testing
import RpcTransport
import RpcTransportTesting
@testable import CapnWebCore

/// A main object whose `hang` calls suspend until cancelled, counting the ones still running.
final class HangCounter: RpcTarget {
    private let live = Mutex(0)
    private let started = Mutex(0)

    var running: Int { live.withLock { $0 } }
    var startedCount: Int { started.withLock { $0 } }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "hang" else { throw RpcErrorValue.notAFunction(method) }
        live.withLock { $0 += 1 }
        started.withLock { $0 += 1 }
        defer { live.withLock { $0 -= 1 } }
        while true {
            try await Task.sleep(for: .seconds(3600))
        }
    }
}

@Suite("Abandoned calls")
struct AbandonedCallTests {
    @Test("calls still running when the peer goes away are cancelled, pulled or not")
    func runningCallsEndWithTheSession() async throws {
        let (a, b) = InMemoryTransport.makePair()
        let api = HangCounter()
        let server = RpcSession<Any>.start(transport: b, main: api)
        let peer = RawPeer(a)
        let calls = 1000
        for id in 1...calls {
            try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
            if id % 2 == 0 { try peer.send(#"["pull",\#(id)]"#) }
        }
        try await waitUntil("every call to start") { api.startedCount == calls }
        #expect(api.running == calls)
        await a.close()
        try await waitUntil("every call to end") { api.running == 0 }
        try await waitUntil("the server's tables to empty") { server.getStats() == RpcStats(imports: 1, exports: 1) }
        await server.close()
    }

    @Test("a call the peer released while it ran, never pulled, is cancelled when the session ends")
    func releasedRunningCallsEndWithTheSession() async throws {
        let (a, b) = InMemoryTransport.makePair()
        let api = HangCounter()
        let server = RpcSession<Any>.start(transport: b, main: api)
        let peer = RawPeer(a)
        try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
        try peer.send(#"["release",1,1]"#)
        try await waitUntil("the call to start") { api.startedCount == 1 }
        try await waitUntil("the release to take the call out of the table") {
            server.getStats() == RpcStats(imports: 1, exports: 1)
        }
        // Released but not cancelled: a call made for its effect runs on while the session does.
        #expect(api.running == 1)
        await a.close()
        try await waitUntil("the released call to end with the session") { api.running == 0 }
        await server.close()
    }
}
