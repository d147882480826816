import CapnWeb
import Foundation
import RpcTransportTesting
import Testing
import CapnWebSocketTestSupport

/// A main object that tells who it serves, from the request that opened its session.
final class WhoAmITarget: RpcTarget {
    private let answer: String

    init(_ info: RpcConnectionInfo) {
        answer = "\(info.header("x-user") ?? "nobody") by \(info.kind) at \(info.path)"
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "whoami" else { throw RpcErrorValue.notAFunction(method) }
        return .string(answer)
    }
}

@Suite("Server admission")
struct ServerAdmissionTests {
    /// Admits requests that carry the right bearer token, refuses others with 401.
    static let admit: @Sendable (RpcConnectionInfo) async -> RpcAdmission = { info in
        info.header("authorization") == "Bearer right" ? .accept : .refuse(status: 401)
    }

    static let credentials = ["Authorization": "Bearer right", "X-User": "ada"]

    @Test("WebSocket sessions are admitted by their headers, and each main object is made from its request")
    func webSocketAdmission() async throws {
        try await withSocketPeers(admit: Self.admit, main: { WhoAmITarget($0) }) { peers in
            let server = peers.server
            let refusal = await #expect(throws: RpcError.self) {
                _ = try await RpcSession<Any>.connect(to: server.webSocketURL)
            }
            #expect(String(describing: refusal).contains("401"))
            #expect(server.sessionCount == 0)

            let session = try await RpcSession<Any>.connect(to: server.webSocketURL) { $0.headers = Self.credentials }
            let me: String = try await session.api.whoami()
            #expect(me == "ada by webSocket at /ws")
            await peers.expectSettled(session)
            #expect(server.sessionCount == 1)
            await session.close()
        }
    }

    @Test("HTTP batches are admitted by their headers, and a refused batch gets the status")
    func batchAdmission() async throws {
        try await withSocketPeers(admit: Self.admit, main: { WhoAmITarget($0) }) { peers in
            let server = peers.server
            let refusal = await #expect(throws: RpcError.self) {
                try await RpcSession<Any>.batch(url: server.batchURL) { api in
                    let _: String = try await api.whoami()
                }
            }
            #expect(String(describing: refusal).contains("401"))

            let me = try await RpcSession<Any>.batch(url: server.batchURL, configure: { $0.headers = Self.credentials }) { api in
                let me: String = try await api.whoami()
                return me
            }
            #expect(me == "ada by batch at /rpc")
            #expect(server.sessionCount == 0)
        }
    }

    @Test("A server without an admission check admits everyone, with its request at hand")
    func everyoneAdmitted() async throws {
        try await withSocketPeers(main: { (info: RpcConnectionInfo) in WhoAmITarget(info) }) { peers in
            let server = peers.server
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
            peers.track(session)
            let me: String = try await session.api.whoami()
            #expect(me == "nobody by webSocket at /ws")
            await peers.expectSettled(session)
            await session.close()
        }
    }
}
