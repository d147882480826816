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

    /// Raised on the main actor by a task the test waits for.
    @MainActor
    final class Flag {
        var raised = false
    }

    @Test("The event streams of an observable that goes away finish, so loops over them end")
    func droppingFinishesStreams() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { server in
            let client = server.client()
            var observable: ActorObservable? = ActorObservable(client: client, options: ActorOptions(name: "counter", key: "streams"))
            guard let counts = observable?.events("newCount", as: Int.self), let ticks = observable?.events("tick", as: Void.self)
            else {
                Issue.record("no observable")
                return
            }
            let ended = Flag()
            let loop = Task { @MainActor in
                for await _ in counts {}
                for await _ in ticks {}
                ended.raised = true
            }
            try await waitUntil("the observable to connect") { observable?.isConnected == true }
            #expect(!ended.raised)
            observable = nil
            try await waitUntil("both loops to end") { ended.raised }
            await loop.value
            await client.close()
        }
    }
}
