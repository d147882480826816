#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import RpcTesting

// The seed's examples talk to "wss://api.example.com"; here they talk to the demo server, a
// `TodoServer` on 127.0.0.1 (a free port). That URL is the one adaptation every example shares.

/// Runs `body` with the WebSocket URL (as a string, as the seed's examples take it) and the
/// HTTP batch URL of a fresh demo server.
func withDemoServer(
    store: TodoStore = TodoStore(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (_ url: String, _ server: TodoServer) async throws -> Void
) async throws {
    try await TodoServer.withServer(store: store) { server in
        try await body(server.webSocketURL.absoluteString, server)
    }
}

extension RpcValue {
    /// The value decoded as a seed model, for checking what an untyped await returned.
    func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }
}

/// Whether the server closes every stream it has open once `write` makes it write to them.
///
/// A reader that stopped (a `break`, a cancelled task) is noticed by the server at its next
/// write, which the client rejects. The stop reaches the client's end of the stream a moment
/// after the reader's task ends, so a write made in between is still delivered: this writes
/// until the server has closed its streams (or the wait's generous bound passes).
func serverClosesStreams(
    _ server: TodoServer,
    isolation: isolated (any Actor)? = #isolation,
    write: () async throws -> Void
) async -> Bool {
    await waitUntil(isolation: isolation) {
        if server.store.subscriberCount == 0 { return true }
        try? await write()
        return server.store.subscriberCount == 0
    }
}
