import RivetKit
import RpcDoTesting
import Testing

@Suite("No manual cleanup: an ActorObservable that goes away gives back its use of the connection")
@MainActor
struct ObservableLifetimeTests {
    @Test("Dropping one of two observables keeps the socket for the other; dropping the last one closes it")
    func droppingClosesTheSocket() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { server in
            let client = server.client()
            let options = ActorOptions(name: "counter", key: "dropped")
            var first: ActorObservable? = ActorObservable(client: client, options: options)
            var second: ActorObservable? = ActorObservable(client: client, options: options)
            try await waitUntil("both observables to connect") {
                first?.isConnected == true && second?.isConnected == true
            }
            #expect(client.connectionUsers(hash: options.hash) == 2)
            #expect(server.openCount == 1)

            first = nil
            #expect(client.connectionUsers(hash: options.hash) == 1)
            // The other one still has the socket.
            let count: Int? = try await second?.action("increment", 1)
            #expect(count == 1)
            #expect(server.openCount == 1)

            second = nil
            #expect(client.connectionUsers(hash: options.hash) == 0)
            try await waitUntil("the server to see the socket close") { server.openCount == 0 }
            #expect(server.openedCount == 1)
            await client.close()
        }
    }

    @Test("An observable dropped while its connection is still opening closes the socket once it opened, and the client's close awaits that")
    func droppedWhileConnecting() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { server in
            let client = server.client()
            let options = ActorOptions(name: "counter", key: "early")
            var observable: ActorObservable? = ActorObservable(client: client, options: options)
            #expect(observable?.isConnected == false)
            #expect(client.connectionUsers(hash: options.hash) == 1)
            observable = nil
            #expect(client.connectionUsers(hash: options.hash) == 0)
            // The disposal runs in the client, which awaits it when it closes.
            await client.close()
            try await waitUntil("the server to see no socket open") { server.openCount == 0 }
        }
    }
}
