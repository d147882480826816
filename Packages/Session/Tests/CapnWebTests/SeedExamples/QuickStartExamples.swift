import Foundation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

// Seed 001's opening example and its "Quick Start" (Connect, Call, Pipeline, Disconnect),
// replayed against our server on 127.0.0.1. Every line is the seed's unless marked
// `// Adapted:`; the seed's `wss://api.example.com` is always the test server's address.

@Suite("Seed 001: hero example and Quick Start")
struct QuickStartExamples {
    @Test("the hero's four chained calls give the author's display name, and the server ran todos.get once")
    func hero() async throws {
        try await withSeedServer { server, backend, peers in
            // Adapted: the test server's address instead of "wss://api.example.com".
            let session = try await RpcSession<TodoAPI>.connect(to: server.webSocketURL.absoluteString)

            let authorName: String = try await session.api
                .todos.get(id: "123")
                .author
                .profile
                .displayName

            #expect(authorName == "User 7")
            #expect(backend.count("todos.get") == 1)
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("Connect: an untyped and a typed session both reach the server")
    func connect() async throws {
        try await withSeedServer { server, _, peers in
            // Adapted: the test server's address instead of "wss://api.example.com".
            let address = server.webSocketURL.absoluteString

            // Untyped session (dynamic member lookup)
            let session = try await RpcSession.connect(to: address)

            // Typed session (full autocomplete)
            let typedSession = try await RpcSession<TodoAPI>.connect(to: address)

            // Adapted: the seed stops at connecting; each session makes one call to prove it works.
            let untyped: RpcSession<Any> = session
            let done: String = try await untyped.api.doWork()
            let todos: [Todo] = try await typedSession.api.todos.list()
            #expect(done == "done")
            #expect(todos.map(\.id) == ["123", "124"])
            #expect(server.sessionCount == 2)
            await peers.expectSettled(session)
            await peers.expectSettled(typedSession)
            await session.close()
            await typedSession.close()
        }
    }

    @Test("Call: a ref to users.get(id: 123) resolves to the user when awaited")
    func call() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)

            // Adapted: the seed's lines in a scope of their own, so that the refs they hold are
            // released before the tables are checked.
            do {
                // Access properties - builds pipeline, no network yet
                let userRef = session.api.users.get(id: 123)    // Ref<User>

                // Await to resolve - NOW the network call happens
                // Adapted: `try await userRef` is not Swift (a ref is a value, not a call); the
                // closest spelling is `resolved()`, which awaits the ref and decodes the
                // annotated type.
                let user: User = try await userRef.resolved()

                #expect(user == User(id: 123, name: "user-123"))
                #expect(backend.count("users.get") == 1)
            }
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("Pipeline: authenticate, currentUser, profile and displayName are one chain")
    func pipeline() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            // Adapted: the seed's `token` is a variable it does not declare.
            let token = "good-token"

            // All four operations execute as ONE network request
            let displayName: String = try await session.api
                .authenticate(token)
                .currentUser
                .profile
                .displayName

            #expect(displayName == "User 2")
            #expect(backend.count("authenticate") == 1)
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("Disconnect: close() ends the session, and withRpcSession closes its session by itself")
    func disconnect() async throws {
        try await withSeedServer { server, _, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            // Adapted: one call first, so that there is something to disconnect.
            let first: String = try await session.api.doWork()
            #expect(first == "done")
            await peers.expectSettled(session)

            await session.close()

            // Adapted: after close, a call fails with connectionLost (the seed says so in prose).
            let late: Result<String, RpcError> = await session.api.doWork().resolvedResult()
            guard case .failure(.connectionLost) = late else {
                Issue.record("expected connectionLost after close, got \(late)")
                return
            }
            #expect(await waitUntil { server.sessionCount == 0 })

            // Adapted: `url` is the test server's address.
            let url = server.webSocketURL

            // Or use scoped lifecycle (recommended)
            try await withRpcSession(to: url) { session in
                // Adapted: the result's type is written (an untyped `let result = try await`
                // is a ref, not a value); the seed never reads `result`, the test does.
                let result: String = try await session.api.doWork()
                #expect(result == "done")
                #expect(server.sessionCount == 1)
                await peers.expectSettled(session)
                // Connection closes automatically
            }
            #expect(await waitUntil { server.sessionCount == 0 })
        }
    }
}
