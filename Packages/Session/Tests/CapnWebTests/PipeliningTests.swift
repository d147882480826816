import RpcWire
import RpcTransportTesting
import Testing
import CapnWebSocketTestSupport
@testable import CapnWebCore
import CapnWeb

/// A main object with a member that holds an object: `todos.get(id)`-style chains.
final class HolderTarget: RpcTarget {
    private let counter = NetCounter(value: 40)

    func property(_ name: String) async throws -> RpcPayload {
        name == "counter" ? .stub(RpcStub(counter)) : .undefined
    }
}

@Suite("Pipelining from async code")
struct PipeliningTests {
    /// Runs `body` against a server of ``NetTarget``, counting the `pull` frames the client sends.
    private func countingPulls(
        main: @escaping @Sendable () -> any RpcTarget = { NetTarget() },
        _ body: (RpcSession<Any>) async throws -> Void
    ) async throws -> Int {
        let pulls = Recorder<String>()
        try await withSocketPeers(main: { _ in main() }) { peers in
            let server = peers.server
            try await withRpcSession(to: server.webSocketURL, configure: { configuration in
                configuration.trace = { sent, text in
                    if sent, text.hasPrefix("[\"pull\"") { pulls.append(text) }
                }
            }) { session in
                try await body(session)
                await peers.expectSettled(session)
            }
        }
        return pulls.all.count
    }

    @Test("a chain of calls awaited in async code is one round trip: only its last result is pulled")
    func chainedCallsArePipelined() async throws {
        let pulls = try await countingPulls { session in
            let value: Int = try await session.api.makeCounter(1).increment(2)
            #expect(value == 3)
        }
        #expect(pulls == 1)
    }

    @Test("a member read then a call, awaited in async code, pulls only the final result")
    func memberThenCallIsPipelined() async throws {
        let pulls = try await countingPulls { session in
            let counter = session.api.makeCounter(5)
            let value: Int = try await counter.value
            #expect(value == 5)
            let next: Int = try await counter.increment(1)
            #expect(next == 6)
        }
        #expect(pulls == 2)
    }

    @Test("a member that holds an object, then a call on it, awaited in async code, is one round trip")
    func memberHoldingObjectThenCall() async throws {
        let pulls = try await countingPulls(main: { HolderTarget() }) { session in
            let value: Int = try await session.api.counter.increment(2)
            #expect(value == 42)
        }
        #expect(pulls == 1)
    }

    @Test("a call awaited at once sends its pull with its push, before anything awaits; a call sent for pipelining sends only its push")
    func awaitedCallSendsPushAndPullTogether() async throws {
        let frames = Recorder<String>()
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            try await withRpcSession(to: server.webSocketURL, configure: { configuration in
                configuration.trace = { sent, text in
                    if sent { frames.append(text) }
                }
            }) { session in
                // Sent explicitly: a ref that is only built sends nothing.
                let kept = session.api.square(3).sendNow()
                #expect(await waitUntil { frames.all.count == 1 })
                #expect(frames.all.first?.hasPrefix("[\"push\"") == true)

                let awaited = session.api.stub.hook.callAwaited(["square"], [.integer(4)])
                #expect(await waitUntil { frames.all.count == 3 })
                #expect(frames.all[1].hasPrefix("[\"push\""))
                #expect(frames.all[2] == "[\"pull\",2]")

                guard case .success(.integer(16)) = await awaited.settled() else {
                    Issue.record("the awaited call did not return 16")
                    return
                }
                // Awaiting registers no second pull.
                #expect(frames.all.filter { $0.hasPrefix("[\"pull\"") }.count == 1)
                let squared: Int = try await kept.resolved()
                #expect(squared == 9)
                await peers.expectSettled(session)
            }
        }
    }
}
