import Foundation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

// Seed 001's "The `Ref<T>` Type": building refs, dynamic member lookup and passing unresolved
// refs as arguments.

@Suite("Seed 001: the Ref<T> type")
struct RefExamples {
    @Test("a ref built from users.get(id: 123).profile.displayName resolves to the name")
    func buildThenAwait() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)

            // Adapted: the seed's lines in a scope of their own, so that the refs they hold are
            // released before the tables are checked.
            do {
                let userRef = session.api.users.get(id: 123)   // Ref<User> - no network call yet
                let nameRef = userRef.profile.displayName       // Ref<String> - still no call
                // Adapted: `let name: String = try await nameRef` is spelled with `resolved()`.
                let name: String = try await nameRef.resolved()            // NOW the call happens

                #expect(name == "User 123")
                #expect(backend.count("users.get") == 1)
            }
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("dynamic member lookup: users.get(id: 123).profile is a ref that decodes as a Profile")
    func dynamicMemberLookup() async throws {
        try await withSeedServer { server, _, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)

            // Adapted: the seed's lines in a scope of their own, so that the refs they hold are
            // released before the tables are checked.
            do {
                // Enables natural syntax:
                let profile = session.api.users.get(id: 123).profile  // Ref<Profile>

                // Adapted: the seed stops at the ref; the test resolves it.
                let resolved: Profile = try await profile.resolved()
                #expect(resolved == Profile(userId: 123, displayName: "User 123"))
            }
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("an unresolved ref passed as an argument is resolved on the server")
    func passingRefsAsArguments() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            // Adapted: the seed's `token` is a variable it does not declare.
            let token = "good-token"

            // Adapted: the seed's lines in a scope of their own, so that the refs they hold are
            // released before the tables are checked.
            do {
                let authed = session.api.authenticate(token)  // Ref<AuthedAPI>

                // userId is extracted from authed.currentUser.id on the SERVER
                let profile: Profile = try await session.api.getUserProfile(
                    userId: authed.currentUser.id  // Ref<Int>, not Int
                )

                #expect(profile == Profile(userId: 2, displayName: "User 2"))
                #expect(backend.calls == ["authenticate", "getUserProfile"])
            }
            await peers.expectSettled(session)
            await session.close()
        }
    }
}
