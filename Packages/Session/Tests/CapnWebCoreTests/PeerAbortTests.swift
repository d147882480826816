import RpcTransportTesting
import Testing
import CapnWebTestSupport
import RpcTransport
@testable import CapnWebCore

/// An `["abort", …]` from the peer ends the session: every call still waiting fails at once
/// with the peer's error, however far it got.
@Suite("Peer abort")
struct PeerAbortTests {
    @Test("an abort from the peer fails every pending call at once and ends the session", arguments: [
        (#"["abort",["error","Error","the server gave up"]]"#, "the server gave up"),
        (#"["abort","the server gave up"]"#, "the server gave up"),
    ])
    func abortFailsPendingCalls(_ frame: String, _ message: String) async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            // A call timeout far beyond the waits below: only the abort can end the calls in time.
            let client = peers.startClient(transport: a, configuration: Configuration(timeout: .seconds(600)))
            let peer = FaultPeer(b)
            let failures = Recorder<String>()
            // A call awaited at once, one pipelined on an unanswered promise, and one sent (explicitly:
            // a ref that is only built sends nothing) whose pull follows later.
            let direct = Task {
                do {
                    let _: Double = try await client.api.square(2)
                } catch {
                    failures.append("\(error)")
                }
            }
            let pipelined = Task {
                do {
                    let _: Int = try await client.api.makeCounter(1).increment()
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(await waitUntil { peer.frames.filter { $0.hasPrefix(#"["pull","#) }.count == 2 })
            let pushed = client.api.square(3).sendNow()
            #expect(await waitUntil { peer.frames.count == 6 })

            try peer.send(frame)

            #expect(await waitUntil(timeout: .seconds(10)) { failures.count == 2 })
            do {
                _ = try await pushed.resolved(as: Double.self)
            } catch {
                failures.append("\(error)")
            }
            _ = (await direct.value, await pipelined.value)
            #expect(failures.count == 3)
            for failure in failures.all {
                #expect(failure.contains(message))
            }
            #expect(await waitUntil { peer.closure != nil })
            #expect(peer.closure?.code == .applicationError)
            try await waitUntil("the client's tables to settle") { client.getStats() == .mainOnly }
            // Calls made after the abort fail at once too.
            await #expect(throws: RpcError.self) {
                let _: Double = try await client.api.square(4)
            }
        }
    }

    @Test("an abort from the peer ends a stream being read from it at once")
    func abortEndsStream() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let (chunks, feed) = RpcReadableStream.makeStream()
            // One chunk, then nothing: only the abort can end the read.
            feed.yield(.integer(1))
            _ = peers.startServer(transport: b, main: StreamSource(chunks))
            let client = peers.startClient(transport: a, configuration: Configuration(timeout: .seconds(600)))
            guard case .resolved(.readable(let stream)) = await client.api.trickle().settle() else {
                Issue.record("trickle() did not give a readable stream")
                return
            }
            let read = Recorder<String>()
            let reader = Task {
                do {
                    for try await chunk in stream { read.append("\(chunk)") }
                    read.append("finished")
                } catch {
                    read.append("failed: \(error)")
                }
            }
            #expect(await waitUntil { read.count == 1 })

            try b.enqueue(.text(#"["abort",["error","Error","the server gave up"]]"#))

            #expect(await waitUntil(timeout: .seconds(10)) { read.count == 2 })
            reader.cancel()
            await reader.value
            #expect(read.all.last?.hasPrefix("failed: ") == true)
            feed.finish()
        }
    }
}

/// A main object whose `trickle()` returns the stream it was made with.
private final class StreamSource: RpcTarget {
    let chunks: RpcReadableStream

    init(_ chunks: RpcReadableStream) {
        self.chunks = chunks
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "trickle" else { throw RpcErrorValue.notAFunction(method) }
        return .readable(chunks)
    }
}
