import RivetKit
import RpcDoTesting
import Testing

@Suite("ActorObservable errors as React's useActor has them: cleared on connecting again, each new one given once")
@MainActor
struct ActorObservableErrorTests {
    /// A client that reconnects at once.
    static func client(of server: InProcessServer) -> RivetKitClient {
        server.client { $0.reconnectBackoff = Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5)) }
    }

    @Test("A lost connection sets error, which clears once connected again; newErrors gives it once and never to a later subscriber")
    func clearedOnReconnect() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { server in
            let client = Self.client(of: server)
            let counter = ActorObservable(client: client, options: ActorOptions(name: "counter", key: "lossy"))
            var cancellables = Set<AnyCancellable>()
            var seen: [ActorError] = []
            counter.newErrors.sink { seen.append($0) }.store(in: &cancellables)
            try await waitUntil("the observable to connect") { counter.isConnected }
            #expect(seen.isEmpty)

            // The server goes away: the loss is reported once, and stays while reconnecting fails.
            server.accepting = false
            server.dropConnections()
            try await waitUntil("the loss to be reported") { counter.error != nil }
            #expect(counter.error?.code == "connection_lost")
            #expect(seen.map(\.code) == ["connection_lost"])
            #expect(!counter.isConnected)

            // A subscriber that comes now is not given that error again; `$error` replays it.
            var late: [ActorError] = []
            counter.newErrors.sink { late.append($0) }.store(in: &cancellables)
            #expect(late.isEmpty)
            var replayed: [ActorError?] = []
            counter.$error.sink { replayed.append($0) }.store(in: &cancellables)
            #expect(replayed == [seen.first])

            // The server is back: connected again, and the error is gone without a new one sent.
            server.accepting = true
            try await waitUntil("the observable to reconnect") { counter.isConnected }
            #expect(counter.error == nil)
            #expect(seen.count == 1)
            #expect(late.isEmpty)

            // Another loss is a new error: given once to each subscriber.
            server.accepting = false
            server.dropConnections()
            try await waitUntil("the second loss to be reported") { counter.error != nil }
            #expect(seen.count == 2)
            #expect(late.map(\.code) == ["connection_lost"])
            server.accepting = true
            try await waitUntil("the observable to reconnect again") { counter.isConnected && counter.error == nil }
            #expect(seen.count == 2)
            await counter.close()
            await client.close()
        }
    }

    @Test("A decode error is given once to newErrors and clears when the connection connects again")
    func decodeErrorCleared() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { server in
            let client = Self.client(of: server)
            let signals = ActorObservable(client: client, options: ActorOptions(name: "signals", key: "decode"))
            var cancellables = Set<AnyCancellable>()
            var seen: [ActorError] = []
            signals.newErrors.sink { seen.append($0) }.store(in: &cancellables)
            let pairs = signals.events("move", as: (Double, Double).self)
            try await waitUntil("the observable to connect") { signals.isConnected }
            // "move" with one argument where two are expected.
            let _: Int = try await signals.action("emit", "move", 1)
            try await waitUntil("the decode error") { signals.error != nil }
            #expect(seen.map(\.code) == ["decode_error"])
            server.dropConnections()
            try await waitUntil("the observable to reconnect") { signals.isConnected && signals.error == nil }
            // Given once, however many statuses and errors came since.
            #expect(seen.filter { $0.code == "decode_error" }.count == 1)
            _ = pairs
            await signals.close()
            await client.close()
        }
    }

    @Test("An error set before anybody subscribed (a configuration error as the observable is made) is given once, to the next subscriber")
    func heldForTheFirstSubscriber() async {
        let client = RivetKitClient(ClientConfig(endpoint: "http://h/?q=1", token: nil, namespace: nil))
        let actor = ActorObservable(client: client, options: ActorOptions(name: "counter", key: "config"))
        #expect(actor.error?.code == "config_error")
        // Not connected: a connection's open would only fail with the same error, given twice.
        #expect(client.connectionUsers(hash: actor.hash) == 0)
        #expect(actor.connStatus == .idle)
        let refused = await #expect(throws: ActorError.self) { let _: Int = try await actor.action("getCount") }
        #expect(refused?.code == "config_error")
        var cancellables = Set<AnyCancellable>()
        var first: [ActorError] = []
        actor.newErrors.sink { first.append($0) }.store(in: &cancellables)
        #expect(first.map(\.code) == ["config_error"])
        var second: [ActorError] = []
        actor.newErrors.sink { second.append($0) }.store(in: &cancellables)
        #expect(second.isEmpty)
        // A new error goes to every subscriber, once.
        let next = ActorError(group: "client", code: "config_error", message: "again")
        actor.report(next)
        #expect(first.map(\.message).last == "again")
        #expect(first.count == 2)
        #expect(second == [next])
        cancellables.removeAll()
        await actor.close()
        await client.close()
    }

    @Test("An error held for a subscriber is dropped once the connection connects: it is over")
    func heldErrorDroppedOnConnect() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { server in
            let client = Self.client(of: server)
            let counter = ActorObservable(client: client, options: ActorOptions(name: "counter", key: "held"))
            counter.report(ActorError(group: "client", code: "config_error", message: "before connecting"))
            try await waitUntil("the observable to connect") { counter.isConnected }
            #expect(counter.error == nil)
            var cancellables = Set<AnyCancellable>()
            var seen: [ActorError] = []
            counter.newErrors.sink { seen.append($0) }.store(in: &cancellables)
            #expect(seen.isEmpty)
            await counter.close()
            await client.close()
        }
    }
}
