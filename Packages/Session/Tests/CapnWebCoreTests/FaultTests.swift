import Foundation
import RpcTransportTesting
import Synchronization
import Testing
import CapnWebTestSupport
import RpcTransport
@testable import CapnWebCore

/// The far end of an in-memory pair driven by hand: it sends raw frames and records what it
/// receives and how the connection closed.
final class FaultPeer: Sendable {
    let transport: InMemoryTransport
    private let state = Mutex<(frames: [String], closure: TransportClosure?)>(([], nil))

    init(_ transport: InMemoryTransport) {
        self.transport = transport
        transport.start { [self] event in
            switch event {
            case .message(let message):
                state.withLock { $0.frames.append(message.text ?? "<binary>") }
            case .closed(let closure):
                state.withLock { $0.closure = closure }
            }
        }
    }

    func send(_ text: String) throws {
        try transport.enqueue(.text(text))
    }

    var frames: [String] { state.withLock { $0.frames } }
    var closure: TransportClosure? { state.withLock { $0.closure } }
}

/// A main object for fault tests: `square`, `hang` and `echo`.
final class FaultAPI: RpcTarget {
    /// One entry per `hang()` that started.
    let hangsStarted = Recorder<Bool>()

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "square":
            let n = try arguments.decode(0, as: Double.self)
            return .double(n * n)
        case "echo":
            return arguments.value(at: 0)
        case "big":
            return .string(String(repeating: "x", count: try arguments.decode(0, as: Int.self)))
        case "hang":
            hangsStarted.append(true)
            try await Task.sleep(for: .seconds(3600))
            return .undefined
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

extension MemoryHeavyTests {
    @Suite("Faults")
    struct FaultTests {
        @Test("an answer too large for the transport rejects that call, saying why, and the session goes on")
        func oversizeAnswerRejects() async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair(configuration: .init(maxMessageSize: 4096))
                _ = peers.startServer(transport: b, main: FaultAPI())
                let client = peers.startClient(transport: a)
                do {
                    let _: String = try await client.api.big(10_000)
                    Issue.record("an answer above the limit arrived")
                } catch let error as RpcError {
                    guard case .remote(_, let message) = error else {
                        Issue.record("expected a remote rejection, got \(error)")
                        return
                    }
                    #expect(message.contains("too large to send"))
                    #expect(message.contains("4096"))
                }
                let small: String = try await client.api.big(10)
                #expect(small == "xxxxxxxxxx")
                let n: Double = try await client.api.square(3)
                #expect(n == 9)
            }
        }

        @Test("a transport that drops mid-call fails the pending call with connectionLost and breaks later calls")
        func transportDropsMidCall() async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair()
                let api = FaultAPI()
                _ = peers.startServer(transport: b, main: api)
                let client = peers.startClient(transport: a)
                let broken = Mutex<RpcError?>(nil)
                client.api.onBroken { error in broken.withLock { $0 = error } }
                let pending = Task { () async throws -> Double in try await client.api.hang() }
                // Mid-call for certain: the server is running it.
                try await waitUntil("the server to start the hanging call") { api.hangsStarted.all == [true] }
                a.disconnect()
                await #expect {
                    _ = try await pending.value
                } throws: { error in
                    guard case .connectionLost = error as? RpcError else { return false }
                    return true
                }
                await #expect(throws: RpcError.self) {
                    let _: Double = try await client.api.square(2)
                }
                // The handlers run after the pending calls are failed, on the thread that ended the
                // session: wait for them rather than race them.
                try await waitUntil("the broken handler to run") { broken.withLock { $0 } != nil }
            }
        }

        @Test("a promise's ID introduced again as a stub before it settles aborts the session")
        func promiseIDReusedAsStub() async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair()
                _ = peers.startServer(transport: b, main: FaultAPI())
                let peer = FaultPeer(a)
                try peer.send(#"["push",["pipeline",0,["echo"],[["promise",-2]]]]"#)
                try peer.send(#"["push",["pipeline",0,["echo"],[["export",-2]]]]"#)
                try await waitUntil("the session's end") { peer.closure != nil }
                #expect(peer.closure?.code == .applicationError)
                #expect(peer.frames.contains { $0.hasPrefix(#"["abort""#) && $0.contains("ID -2 names a promise") })
            }
        }

        @Test("malformed and hostile frames abort the session with close code 3000 and an abort message", arguments: [
            "not json",
            #"["bogus", 1]"#,
            #"["pull", 99]"#,
            #"["release", 7, 1]"#,
            #"["push", ["pipeline", 12, ["x"]]]"#,
            #"["push", ["nonsense"]]"#,
            #"["resolve"]"#,
            "[" + String(repeating: "[[", count: 150) + "1" + String(repeating: "]]", count: 150) + "]",
            #"["push", ["bigint", ""# + String(repeating: "9", count: 16_385) + #""]]"#,
        ])
        func hostileFrame(_ frame: String) async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair()
                _ = peers.startServer(transport: b, main: FaultAPI())
                let peer = FaultPeer(a)
                try peer.send(frame)
                let closed = await waitUntil { peer.closure != nil }
                #expect(closed)
                #expect(peer.closure?.code == .applicationError)
                #expect(peer.frames.last?.hasPrefix(#"["abort",["error","#) == true)
            }
        }

        @Test("a release with a count above the refcount aborts the session")
        func negativeRefcount() async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair()
                _ = peers.startServer(transport: b, main: FaultAPI())
                let peer = FaultPeer(a)
                try peer.send(#"["push",["pipeline",0,["square"],[3]]]"#)
                try peer.send(#"["pull",1]"#)
                #expect(await waitUntil { peer.frames.contains(#"["resolve",1,9]"#) })
                try peer.send(#"["release",1,2]"#)
                #expect(await waitUntil { peer.closure != nil })
                #expect(peer.frames.last?.contains("refcount would go negative") == true)
            }
        }

        @Test("a pulled result the peer releases before its answer no longer holds up drain")
        func releasedBeforeAnswer() async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair()
                let server = peers.startServer(transport: b, main: FaultAPI())
                let peer = FaultPeer(a)
                try peer.send(#"["push",["pipeline",0,["hang"],[]]]"#)
                try peer.send(#"["pull",1]"#)
                try peer.send(#"["release",1,1]"#)
                let drained = Mutex(false)
                let drain = Task {
                    await server.drain()
                    drained.withLock { $0 = true }
                }
                #expect(await waitUntil { drained.withLock { $0 } })
                drain.cancel()
            }
        }

        @Test("the session survives good frames after calls and answers in order")
        func rawCallSequence() async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair()
                _ = peers.startServer(transport: b, main: FaultAPI())
                let peer = FaultPeer(a)
                try peer.send(#"["push",["pipeline",0,["square"],[5]]]"#)
                try peer.send(#"["pull",1]"#)
                #expect(await waitUntil { peer.frames.count == 1 })
                #expect(peer.frames == [#"["resolve",1,25]"#])
                try peer.send(#"["release",1,1]"#)
            }
        }

        @Test("ten thousand calls leave the tables and the memory where they were")
        func manyCallsNoGrowth() async throws {
            try await withCheckedPeers { peers in
                let (a, b) = InMemoryTransport.makePair()
                let server = peers.startServer(transport: b, main: FaultAPI())
                let client = peers.startClient(transport: a)
                func run(_ count: Int) async throws {
                    for index in 0..<count {
                        let n: Double = try await client.api.square(Double(index))
                        #expect(n == Double(index * index))
                    }
                }
                try await run(2_000)
                #expect(await waitUntil { [client, server].allSatisfy { $0.getStats() == .mainOnly } })
                let before = residentBytes()
                try await run(10_000)
                #expect(await waitUntil { [client, server].allSatisfy { $0.getStats() == .mainOnly } })
                let growth = residentBytes() - before
                #expect(growth < 16 * 1024 * 1024, "resident memory grew by \(growth) bytes")
            }
        }
    }
}

/// The process's resident set size from /proc, 0 where it is unavailable.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * 4096
}
