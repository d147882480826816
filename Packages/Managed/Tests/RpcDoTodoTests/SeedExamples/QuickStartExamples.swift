#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import RpcTesting
import Testing

/// The seed's opening example and "Quick Start", against the demo server.
@Suite("Seed examples: quick start")
struct QuickStartExamples {
    @Test("the opening example: a four-step chain resolves the user's display name")
    func openingExample() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Magic proxy syntax - chain calls naturally
            let userName: String = try await client.api
                .users.get(id: "123")
                .profile
                .displayName

            #expect(userName == "Alice Martin")
            await client.disconnect()
        }
    }

    @Test("connect, call echo through the proxy with no result type, and disconnect")
    func connectToAServer() async throws {
        try await withDemoServer { url, server in
            // Create and connect the client
            let client = try RpcClient(url: url)
            try await client.connect()

            // Access the magic proxy
            let api = client.api

            // Make calls using natural Swift syntax
            server.resetTraffic()
            let result = try await api.echo(message: "Hello, RpcDo!")
            #expect(result == .string("Hello, RpcDo!"))
            #expect(server.traffic.pulls == 1)

            // Disconnect Gracefully
            await client.disconnect()
            #expect(await client.isConnected == false)
        }
    }

    @Test("withConnection scopes the client: connected inside, disconnected after")
    func scopedConnections() async throws {
        try await withDemoServer { url, server in
            let result = try await RpcClient.withConnection(to: url) { client in
                // Client is connected here
                let user = try await client.api.users.get(id: "123")
                return user
                // Client disconnects automatically, even on error
            }
            #expect(try result.decoded(as: User.self).name == "Alice Martin")
            #expect(await waitUntil { server.sessions.isEmpty })
        }
    }

    @Test("a bad URL or scheme is rejected with invalidArgument")
    func badURL() async throws {
        #expect(throws: RpcError.self) { _ = try RpcClient(url: "not a url") }
        #expect(throws: RpcError.self) { _ = try RpcClient(url: "https://api.example.com") }
    }
}
