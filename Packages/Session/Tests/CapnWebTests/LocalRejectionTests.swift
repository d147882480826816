import Foundation
import Synchronization
import Testing
import CapnWebSocketTestSupport
import CapnWebTestSupport
import RpcTransportTesting
import CapnWeb

/// A main object that counts the calls it received.
final class CountingTarget: RpcTarget {
    private let received = Mutex(0)

    var count: Int { received.withLock { $0 } }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        received.withLock { $0 += 1 }
        return arguments.value(at: 0)
    }
}

@Suite("Local misuse is reported through the seed's five RpcError cases")
struct LocalRejectionTests {
    @Test("an argument that cannot be sent rejects the call locally with a TypeError, and the server receives nothing")
    func unsendableArgument() async throws {
        struct NotEncodable: Sendable {}
        struct TooBig: Encodable, Sendable { var value: UInt64 = .max }
        let target = CountingTarget()
        try await withSocketPeers(main: { _ in target }) { peers in
            let server = peers.server
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
            peers.track(session)
            for outcome in [
                await session.api.echo(NotEncodable()).resolvedResult(as: RpcPayload.self),
                await session.api.echo(TooBig()).resolvedResult(as: RpcPayload.self),
            ] {
                guard case .failure(.remote(type: "TypeError", let message)) = outcome else {
                    Issue.record("expected a local TypeError, got \(outcome)")
                    continue
                }
                #expect(message.contains("NotEncodable") || message.contains("TooBig"), "\(message)")
            }
            let echoed: Int = try await session.api.echo(7)
            #expect(echoed == 7)
            #expect(target.count == 1)
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("reconnect() on a session started on a given transport fails with connectionLost carrying invalidTarget")
    func reconnectWithoutAddress() async throws {
        try await withSessionPair(server: CountingTarget()) { pair in
            let session = pair.client
            await #expect {
                try await session.reconnect()
            } throws: { error in
                guard case .connectionLost(let underlying as TransportError) = error as? RpcError else { return false }
                return underlying.code == .invalidTarget
            }
            let echoed: Int = try await session.api.echo(3)
            #expect(echoed == 3)
        }
    }
}
