import Foundation
import RpcDo
import Testing
import Tinyvex
import TinyvexProtocol
import TinyvexServer

@Suite("Tinyvex client errors as RpcFailure", .timeLimit(.minutes(1)))
struct ErrorCodeTests {
    /// The arguments of the demo's `messages.send`.
    struct Post: Encodable, Sendable {
        let channel: String
        let author: String
        let text: String
    }

    @Test("a server's Tinyvex code maps as the code does, and is remote", arguments: TinyvexErrorCode.allCases)
    func serverCodes(code: TinyvexErrorCode) {
        let failure = TinyvexError.server(code: code.rawValue, message: "m", data: nil).rpcFailure
        #expect(failure.code == code.rpcFailureCode)
        #expect(failure.origin == .remote)
        #expect(failure.metadata == ["layer": "tinyvex", "reason": code.rawValue])
    }

    @Test("a JSON-RPC code from the server maps by its number, an unknown code is unknown")
    func jsonRPCCodes() {
        #expect(TinyvexError.server(code: "-32602", message: "m", data: nil).rpcFailure.code == .invalidArgument)
        #expect(TinyvexError.server(code: "-32601", message: "m", data: nil).rpcFailure.code == .unimplemented)
        #expect(TinyvexError.server(code: "TVX999", message: "m", data: nil).rpcFailure.code == .unknown)
    }

    @Test("decoding is a local internalError and transport keeps the connection's failure")
    func localCases() {
        let decoding = TinyvexError.decoding("bad").rpcFailure
        #expect(decoding.code == .internalError)
        #expect(decoding.origin == .local)
        #expect(decoding.reason == "decoding")
        let lost = ManagedConnectionError(.connectionLost, "gone")
        let transport = TinyvexError.transport(lost.rpcFailure).rpcFailure
        #expect(transport.code == .unavailable)
        #expect(transport.origin == .local)
        #expect(transport.reason == "transport")
        guard case .transport(let carried)? = transport.cause as? TinyvexError else {
            Issue.record("the cause is \(String(describing: transport.cause))")
            return
        }
        #expect((carried.cause as? ManagedConnectionError)?.code == .connectionLost)
    }

    @Test("a result decoded as the wrong type is a local failure; the server's refusal is remote; a closed client's call keeps its cause")
    func againstTheServer() async throws {
        try await TinyvexServer.withServer(schema: TinyvexDemoSchema.schema(), port: 0) { server in
            let client = TinyvexClient(endpoint: try #require(URL(string: server.url)), configuration: TinyvexClientConfiguration())
            let post = Post(channel: "general", author: "ann", text: "hi")
            do {
                _ = try await client.mutation("messages.send", args: post, as: [String].self)
                Issue.record("the id decoded as strings")
            } catch let error as TinyvexError {
                guard case .decoding = error else { Issue.record("got \(error)"); return }
                #expect(error.rpcFailure.origin == .local)
            }
            do {
                _ = try await client.mutation("messages.nothing", args: post, as: Int64.self)
                Issue.record("an unknown mutation succeeded")
            } catch let error as TinyvexError {
                #expect(error.rpcFailure.origin == .remote)
                #expect(error.rpcFailure.code == .aborted)
            }
            await client.close()
            do {
                _ = try await client.mutation("messages.send", args: post, as: Int64.self)
                Issue.record("a closed client's call succeeded")
            } catch let error as TinyvexError {
                guard case .transport(let failure) = error else { Issue.record("got \(error)"); return }
                #expect(failure.origin == .local)
                #expect((failure.cause as? ManagedConnectionError)?.code == .closed)
            }
        }
    }
}
