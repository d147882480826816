import RivetKit
import RivetKitServer
import RpcDoTesting
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
    /// `group.code` for the first `times` attempts (all of them without `times`); records when
    /// each attempt came.
    static func registry(attempts: Shared<[ContinuousClock.Instant]>) -> ActorRegistry {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("picky", initialState: 0)
                .action("ping") { (context: inout ActorContext<Int>) in "pong" }
                .onBeforeConnect { connection in
                    let attempt = attempts.update { times -> Int in
                        times.append(.now)
                        return times.count
                    }
                    guard case .string(let refusal)? = connection.params?["refuse"],
                        let reason = ActorCloseReason(parsing: refusal)
                    else { return }
                    if case .integer(let times)? = connection.params?["times"], attempt > times { return }
                    throw reason.error(message: "refused on attempt \(attempt)")
                })
        return registry
    }

    /// Runs `body` with an in-process server whose registry is ``registry(attempts:)``'s.
    static func withPickyServer(
        attempts: Shared<[ContinuousClock.Instant]>, _ body: (InProcessServer) async throws -> Void
    ) async throws {
        try await InProcessServer.with(registry: registry(attempts: attempts), body)
    }

    static func client(_ server: InProcessServer, backoff: Backoff = Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(4)))
        -> RivetKitClient
    {
        server.client { $0.reconnectBackoff = backoff }
    }

    /// Collects the errors a connection reports.
    static func counting(_ connection: ActorConnection) -> (Task<Void, Never>, Shared<[ActorError]>) {
        let seen = Shared<[ActorError]>([])
        let errors = connection.errors()
        let task = Task { for await error in errors { seen.update { $0.append(error) } } }
        return (task, seen)
    }

    @Test("A stale-actor refusal before the first Init is tried again with the backoff, and the queued action goes through once connected")
    func retryableThenConnected() async throws {
        let attempts = Shared<[ContinuousClock.Instant]>([])
        try await Self.withPickyServer(attempts: attempts) { (server: InProcessServer) async throws in
            let client = Self.client(server)
            let connection = client.getOrCreate("picky", key: ["p1"], params: ["refuse": "actor.starting", "times": 2]).connect()
            let (reader, seen) = Self.counting(connection)
            let pending = Task { try await connection.action("ping", args: []) }
            connection.start()
            #expect(try await pending.value == "pong")
            #expect(connection.status == .connected)
            #expect(attempts.value.count == 3)
            #expect(seen.value.isEmpty)
            #expect(connection.lastError == nil)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("Retries before the first Init back off: each wait is at least the backoff's growing delay")
    func retriesBackOff() async throws {
        let attempts = Shared<[ContinuousClock.Instant]>([])
        try await Self.withPickyServer(attempts: attempts) { (server: InProcessServer) async throws in
            let backoff = Backoff(initialDelay: .milliseconds(10), maxDelay: .seconds(10), jitter: .none)
            let client = Self.client(server, backoff: backoff)
            let connection = client.getOrCreate("picky", key: ["p3"], params: ["refuse": "actor.stopping"]).connect()
            connection.start()
            try await waitUntil("five attempts") { attempts.value.count >= 5 }
            #expect(connection.status == .connecting)
            await connection.dispose()
            // Waits of 10, 20, 40 and 80 ms: a wait that did not grow would come sooner.
            let times = attempts.value
            for retry in 1 ..< 5 {
                #expect(times[retry] - times[retry - 1] >= backoff.delay(forAttempt: retry), "retry \(retry)")
            }
            await client.close()
        }
    }

    @Test("Any other refusal before the first Init rejects the waiting action, is reported once and goes idle without retrying")
    func nonRetryableGoesIdle() async throws {
        let attempts = Shared<[ContinuousClock.Instant]>([])
        try await Self.withPickyServer(attempts: attempts) { (server: InProcessServer) async throws in
            // No wait between attempts: a retry would come at once.
            let client = Self.client(server, backoff: Backoff(initialDelay: .zero, maxDelay: .zero, jitter: .none))
            let connection = client.getOrCreate("picky", key: ["p2"], params: ["refuse": "user.forbidden"]).connect()
            let (reader, seen) = Self.counting(connection)
            let pending = Task { try await connection.action("ping", args: []) }
            connection.start()
            let rejected = await #expect(throws: ActorError.self) { try await pending.value }
            #expect(rejected?.group == "user")
            #expect(rejected?.code == "forbidden")
            try await ClientTests.waitFor(connection, .idle)
            try await waitUntil("the error to be reported") { !seen.value.isEmpty }
            #expect(attempts.value.count == 1)
            // start() after going idle tries again, once.
            connection.start()
            try await waitUntil("the second report") { seen.value.count == 2 }
            try await ClientTests.waitFor(connection, .idle)
            #expect(attempts.value.count == 2)
            #expect(seen.value.map(\.code) == ["forbidden", "forbidden"])
            #expect(server.openedCount == 2)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("A refused token before the first Init is auth.unauthorized once, then idle")
    func unauthorized() async throws {
        try await InProcessServer.with(token: "right") { (server: InProcessServer) async throws in
            let client = server.client(token: "wrong") { $0.reconnectBackoff = Backoff(initialDelay: .zero, maxDelay: .zero) }
            let connection = client.getOrCreate("counter", key: ["auth"]).connect()
            let (reader, seen) = Self.counting(connection)
            connection.start()
            try await waitUntil("the error to be reported") { !seen.value.isEmpty }
            try await ClientTests.waitFor(connection, .idle)
            #expect(seen.value.map(\.description).first?.hasPrefix("auth.unauthorized") == true)
            #expect(server.openedCount == 1)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("An id connection to an actor that does not exist is actor.not_found once, then idle: an id does not come back")
    func idNotFound() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client { $0.reconnectBackoff = Backoff(initialDelay: .zero, maxDelay: .zero) }
            let connection = client.getForId("counter", actorId: "no-such-actor").connect()
            let (reader, seen) = Self.counting(connection)
            let pending = Task { try await connection.action("getCount", args: []) }
            connection.start()
            let rejected = await #expect(throws: ActorError.self) { try await pending.value }
            #expect(rejected?.code == "not_found")
            try await waitUntil("the error to be reported") { !seen.value.isEmpty }
            try await ClientTests.waitFor(connection, .idle)
            #expect(seen.value.map(\.description).map { $0.hasPrefix("actor.not_found") } == [true])
            #expect(server.openedCount == 1)
            await connection.dispose()
            reader.cancel()
            await client.close()
        }
    }

    @Test("A get connection to an actor that does not exist yet keeps trying (actor.not_found is stale) and connects once it is created")
    func getWaitsForCreation() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = Self.client(server)
            let connection = client.get("counter", key: ["later"]).connect()
            let (reader, seen) = Self.counting(connection)
            connection.start()
            try await waitUntil("three refused attempts") { server.openedCount >= 3 }
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
