#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CapnWeb
import RpcDoTodo
import RpcTesting
import Testing

/// A todo as a client decodes it.
struct WireTodo: Decodable, Sendable, Equatable {
    var id: String
    var title: String
    var completed: Bool
    var createdAt: Date
    var updatedAt: Date
}

/// A user as a client decodes it.
struct WireUser: Decodable, Sendable {
    struct Profile: Decodable, Sendable {
        var userId: String
        var displayName: String
    }

    var id: String
    var name: String
    var email: String
    var profile: Profile
}

/// A notification as a client decodes it.
struct WireNotification: Decodable, Sendable {
    var id: String
    var title: String
    var body: String
    var isRead: Bool
}

/// Starts a Todo server on 127.0.0.1 (a free port), connects a CapnWeb session to it over
/// WebSocket and runs `body` with the session's `api`. Afterwards both sides must hold only
/// their main entries: `{imports: 1, exports: 1}`.
func withTodoSession(
    store: TodoStore = TodoStore(),
    _ body: (Ref<Any>, TodoServer) async throws -> Void
) async throws {
    try await TodoServer.withServer(store: store) { server in
        let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
        do {
            try await body(session.api, server)
        } catch {
            await session.close()
            throw error
        }
        await expectClean(session, server)
        await session.close()
    }
}

/// Checks that the client session and every server session hold only their main entries,
/// polling for up to five seconds (releases travel asynchronously).
func expectClean(_ client: RpcSession<Any>, _ server: TodoServer) async {
    let clean = RpcStats(imports: 1, exports: 1)
    _ = await waitUntil {
        client.getStats() == clean && server.sessions.allSatisfy { $0.getStats() == clean }
    }
    #expect(client.getStats() == clean, "client stats")
    #expect(!server.sessions.isEmpty, "the server sees the session")
    for session in server.sessions {
        #expect(session.getStats() == clean, "server stats")
    }
}

/// The error value `ref` rejected with, or `nil` when it did not reject.
///
/// Tests build the refs they pass here in small synchronous functions: in an async context
/// Swift prefers `Ref`'s awaiting overloads (a `Ref` is `Decodable`), which would await each
/// step of a chain instead of pipelining it.
func rejection(_ ref: Ref<Any>) async -> RpcErrorValue? {
    if case .rejected(let value) = await ref.settle() { return value }
    return nil
}

/// A number of seconds sent as an integer or a double.
func seconds(_ payload: RpcPayload?) -> Double? {
    switch payload {
    case .integer(let n)?: Double(n)
    case .double(let d)?: d
    default: nil
    }
}
