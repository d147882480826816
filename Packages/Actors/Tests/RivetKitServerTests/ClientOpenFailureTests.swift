import Foundation
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization
import Testing

@Suite("Open failures before the first Init: retried for a stale actor only")
struct ClientOpenFailureTests {
    /// A value shared with the server's hooks or a reading task.
    final class Shared<Value: Sendable>: Sendable {
        private let state: Mutex<Value>
        init(_ value: Value) { state = Mutex(value) }
        var value: Value { state.withLock { $0 } }
        func update<R>(_ body: (inout Value) -> R) -> R { state.withLock { body(&$0) } }
    }

    /// A `picky` actor whose connections are refused with the `refuse` parameter's
    /// `group.code` for the first `times` attempts (all of them without `times`); counts the
    /// attempts.
    static func registry(attempts: Shared<Int>) -> ActorRegistry {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("picky", initialState: 0)
                .action("ping") { (context: inout ActorContext<Int>) in "pong" }
                .onBeforeConnect { connection in
                    let attempt = attempts.update { count -> Int in
                        count += 1
                        return count
                    }
                    guard case .string(let refusal)? = connection.params?["refuse"],
                        let reason = ActorCloseReason(parsing: refusal)
                    else { return }
                    if case .integer(let times)? = connection.params?["times"], attempt > times { return }
                    throw reason.error(message: "refused on attempt \(attempt)")
                })
        return registry
    }

    /// Runs `body` with a server whose registry is ``registry(attempts:)``'s.
    static func withPickyServer(attempts: Shared<Int>, _ body: (ActorServer) async throws -> Void) async throws {
        try await withActorServer(
            registry: registry(attempts: attempts), store: try SQLiteActorStore.inMemory(),
            configuration: ServerHarness.configuration()
        ) { (server: ActorServer) async throws -> Void in
            try await body(server)
        }
    }

    static func client(_ server: ActorServer) -> RivetKitClient {
        var config = ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil, disableMetadataLookup: true)
        config.reconnectBackoff = Backoff(initialDelay: .milliseconds(10), maxDelay: .milliseconds(40))
        return RivetKitClient(config)
    }

    /// Counts the errors a connection reports.
    static func counting(_ connection: ActorConnection) -> (Task<Void, Never>, Shared<[ActorError]>) {
        let seen = Shared<[ActorError]>([])
        let errors = connection.errors()
        let task = Task { for await error in errors { seen.update { $0.append(error) } } }
        return (task, seen)
    }

    @Test("A stale-actor refusal before the first Init is tried again with the backoff, and the queued action goes through once connected")
    func retryableThenConnected() async throws {
        let attempts = Shared(0)
        try await Self.withPickyServer(attempts: attempts) { (server: ActorServer) async throws -> Void in
            let client = Self.client(server)
            let connection = client.getOrCreate("picky", key: ["p1"], params: ["refuse": "actor.starting", "times": 2]).connect()
            let (reader, seen) = Self.counting(connection)
            let pending = Task { try await connection.action("ping", args: []) }
            connection.start()
            #expect(try await pending.value == "pong")
            #expect(connection.status == .connected)
            #expect(attempts.value == 3)
            #expect(seen.value.isEmpty)
            #expect(connection.lastError == nil)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("Retries before the first Init back off: the wait grows from one attempt to the next")
    func retriesBackOff() async throws {
        let attempts = Shared(0)
        try await Self.withPickyServer(attempts: attempts) { (server: ActorServer) async throws -> Void in
            var config = ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil, disableMetadataLookup: true)
            config.reconnectBackoff = Backoff(initialDelay: .milliseconds(20), maxDelay: .seconds(10), jitter: .none)
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("picky", key: ["p3"], params: ["refuse": "actor.stopping"]).connect()
            connection.start()
            try await ServerHarness.waitUntil { attempts.value >= 2 }
            // Waits of 20, 40, 80, 160 and 320 ms make at most 6 attempts in this time; a wait
            // that does not grow would make about 35.
            try await Task.sleep(for: .milliseconds(700))
            #expect(attempts.value <= 8)
            #expect(connection.status == .connecting)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("Any other refusal before the first Init rejects the waiting action, is reported once and goes idle without retrying")
    func nonRetryableGoesIdle() async throws {
        let attempts = Shared(0)
        try await Self.withPickyServer(attempts: attempts) { (server: ActorServer) async throws -> Void in
            // No wait between reconnects: the reconnecting connection would open again at
            // once after the close if it were allowed to before the first Init.
            var config = ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil, disableMetadataLookup: true)
            config.reconnectBackoff = Backoff(initialDelay: .zero, maxDelay: .zero, jitter: .none)
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("picky", key: ["p2"], params: ["refuse": "user.forbidden"]).connect()
            let (reader, seen) = Self.counting(connection)
            let pending = Task { try await connection.action("ping", args: []) }
            connection.start()
            try await ServerHarness.waitUntil { attempts.value >= 1 }
            try await ClientTests.waitFor(connection, .idle)
            let rejected = await #expect(throws: ActorError.self) { try await pending.value }
            #expect(rejected?.group == "user")
            #expect(rejected?.code == "forbidden")
            try await ServerHarness.waitUntil { !seen.value.isEmpty }
            // Many backoff periods later, nothing was tried again or reported twice.
            try await Task.sleep(for: .milliseconds(300))
            #expect(attempts.value == 1)
            #expect(seen.value.map(\.code) == ["forbidden"])
            #expect(connection.status == .idle)
            // start() after going idle tries again.
            connection.start()
            try await ServerHarness.waitUntil { attempts.value == 2 }
            try await ClientTests.waitFor(connection, .idle)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("A refused token before the first Init is auth.unauthorized once, then idle")
    func unauthorized() async throws {
        try await ClientTests.withServer(token: "right") { (server: ActorServer) async throws -> Void in
            var config = ClientConfig(endpoint: server.endpoint, token: "wrong", namespace: nil, disableMetadataLookup: true)
            config.reconnectBackoff = Backoff(initialDelay: .milliseconds(10), maxDelay: .milliseconds(40))
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("counter", key: ["auth"]).connect()
            let (reader, seen) = Self.counting(connection)
            connection.start()
            try await ServerHarness.waitUntil { !seen.value.isEmpty }
            try await ClientTests.waitFor(connection, .idle)
            #expect(seen.value.map(\.description).first?.hasPrefix("auth.unauthorized") == true)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("An id connection to an actor that does not exist is actor.not_found once, then idle: an id does not come back")
    func idNotFound() async throws {
        try await ClientTests.withServer { (server: ActorServer) async throws -> Void in
            let client = Self.client(server)
            let connection = client.getForId("counter", actorId: "no-such-actor").connect()
            let (reader, seen) = Self.counting(connection)
            let pending = Task { try await connection.action("getCount", args: []) }
            connection.start()
            try await ServerHarness.waitUntil { !seen.value.isEmpty }
            try await ClientTests.waitFor(connection, .idle)
            let rejected = await #expect(throws: ActorError.self) { try await pending.value }
            #expect(rejected?.code == "not_found")
            try await Task.sleep(for: .milliseconds(200))
            #expect(seen.value.map(\.description).map { $0.hasPrefix("actor.not_found") } == [true])
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("A get connection to an actor that does not exist yet keeps trying (actor.not_found is stale) and connects once it is created")
    func getWaitsForCreation() async throws {
        try await ClientTests.withServer { (server: ActorServer) async throws -> Void in
            let client = Self.client(server)
            let connection = client.get("counter", key: ["later"]).connect()
            let (reader, seen) = Self.counting(connection)
            connection.start()
            try await Task.sleep(for: .milliseconds(100))
            #expect(connection.status == .connecting)
            let id = try await client.getOrCreate("counter", key: ["later"], createWithInput: 8).resolve()
            try await ClientTests.waitFor(connection, .connected)
            #expect(connection.actorId == id)
            #expect(try await connection.action("getCount", args: []) == 8)
            #expect(seen.value.isEmpty)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }
}
