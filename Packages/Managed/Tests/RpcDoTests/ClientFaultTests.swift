import CapnWeb
import Foundation
@testable import RpcDo
@_spi(RpcImplementation) import RpcTransport
import RpcTesting
import Testing

@Suite("RpcClient under faults (in-memory transport)")
struct ClientFaultTests {
    @Test("a server cut mid-session shows reconnecting then connected, and later calls succeed")
    func reconnectsAfterCut() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        try await client.connect()
        let log = StateLog()
        let states = client.connectionStates
        let watcher = Task {
            for await state in states { log.append(state) }
        }
        let first: Int = try await client.api.square(n: 3)
        #expect(first == 9)
        server.setRefusing(true)
        server.cutAll()
        #expect(await waitUntil { log.all.contains("reconnecting(2)") })
        #expect(await client.isConnected == false)
        server.setRefusing(false)
        #expect(await waitUntil { await client.isConnected })
        let second: Int = try await client.api.square(n: 4)
        #expect(second == 16)
        await client.disconnect()
        await watcher.value
        let all = log.all
        let reconnecting = try #require(all.firstIndex(of: "reconnecting(1)"))
        let reconnected = try #require(all.lastIndex(of: "connected"))
        #expect(reconnecting < reconnected)
        #expect(all.last == "disconnected")
        #expect(server.connects == 2)
    }

    @Test("an in-flight call that is not idempotent fails with connectionLost and is not repeated")
    func inFlightNonIdempotentFails() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        try await client.connect()
        async let slow: Result<String, RpcError> = result { try await client.api.slow(ms: 3000) }
        #expect(await waitUntil { server.service.calls("slow") == 1 })
        server.cutAll()
        let outcome = await slow
        guard case .failure(.connectionLost) = outcome else {
            Issue.record("expected connectionLost, got \(outcome)")
            await client.disconnect()
            return
        }
        #expect(server.service.calls("slow") == 1)
        await client.disconnect()
    }

    @Test("an in-flight call marked idempotent is sent again after the reconnect and succeeds")
    func inFlightIdempotentRetried() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        try await client.connect()
        async let slow: Result<String, RpcError> = result { try await client.api.slow(ms: 1500).idempotent() }
        #expect(await waitUntil { server.service.calls("slow") == 1 })
        server.cutAll()
        let outcome = await slow
        #expect(outcome == .success("done"))
        #expect(server.service.calls("slow") == 2)
        await client.disconnect()
    }

    @Test("an interceptor can change a call: marked idempotent by policy, it is retried after a cut")
    func interceptorChangesCall() async throws {
        struct RetryReads: ClientInterceptor {
            func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
                var call = call
                if call.method.hasPrefix(".slow") { call.isIdempotent = true }
                return try await next(call)
            }
        }
        let server = InMemoryServer()
        var configuration = InMemoryServer.configuration()
        configuration.interceptors = [RetryReads()]
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        async let slow: Result<String, RpcError> = result { try await client.api.slow(ms: 1500) }
        #expect(await waitUntil { server.service.calls("slow") == 1 })
        server.cutAll()
        #expect(await slow == .success("done"))
        #expect(server.service.calls("slow") == 2)
        await client.disconnect()
    }

    @Test("a call made while reconnecting waits for the connection and is sent once")
    func offlineCallWaits() async throws {
        try await squareWhileOffline(5, configuration: InMemoryServer.configuration(), offlineWaits: 1)
    }

    @Test("a call that timed out waiting for the connection was never sent, so it is retried once the server is back")
    func unsentCallRetried() async throws {
        // The call waits for the connection, times out unsent after 0.3 s and waits again.
        try await squareWhileOffline(
            6, configuration: InMemoryServer.configuration(maxRetries: 20, timeout: 0.3), offlineWaits: 2)
    }

    /// Cuts the connection and refuses new ones, calls `square(n)`, waits until the call has
    /// begun waiting for the connection `offlineWaits` times (each attempt that finds no
    /// connection waits once) with nothing reaching the server, lets connections in again and
    /// checks the call is answered, once.
    private func squareWhileOffline(_ n: Int, configuration: RpcClientConfiguration, offlineWaits: UInt64) async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        server.setRefusing(true)
        server.cutAll()
        #expect(await waitUntil { await !client.isConnected })
        let waits = client.connection.offlineWaitCount
        async let value: Result<Int, RpcError> = result { try await client.api.square(n: n) }
        try await waitUntil("the call to wait for the connection \(offlineWaits) times") {
            client.connection.offlineWaitCount >= waits + offlineWaits
        }
        #expect(server.service.calls("square") == 0)
        server.setRefusing(false)
        #expect(await value == .success(n * n))
        #expect(server.service.calls("square") == 1)
        await client.disconnect()
    }

    @Test("with the fail policy a call made while reconnecting fails at once with connectionLost")
    func offlineFailPolicy() async throws {
        let server = InMemoryServer()
        var configuration = InMemoryServer.configuration()
        configuration.offlinePolicy = .fail
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        server.setRefusing(true)
        server.cutAll()
        #expect(await waitUntil { await !client.isConnected })
        let outcome = await result { () async throws -> Int in try await client.api.square(n: 5) }
        guard case .failure(.connectionLost(let reason?)) = outcome else {
            Issue.record("expected connectionLost, got \(outcome)")
            await client.disconnect()
            return
        }
        #expect(reason.contains("offline policy"))
        await client.disconnect()
    }

    @Test("a rate-limited call is retried after the server's retryAfter and then succeeds")
    func rateLimitHonoured() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        try await client.connect()
        server.service.rateLimitNext(2)
        let value: String = try await client.api.limited()
        #expect(value == "ok")
        #expect(server.service.calls("limited") == 3)
        // Each retry waits what the server's error asked for (retryAfter 0.2 s), not the
        // backoff: the rule, checked without a clock.
        let rateLimited = RpcError.rateLimitExceeded(retryAfter: 0.2)
        for attempt in 1...2 {
            #expect(client.core.retryDelay(after: rateLimited, attempt: attempt) == .seconds(0.2))
        }
        // Capped by the configuration's maxRetryDelay (0.5 s).
        #expect(client.core.retryDelay(after: .rateLimitExceeded(retryAfter: 60), attempt: 1) == .seconds(0.5))
        await client.disconnect()
    }

    @Test("a rate limit that outlasts maxRetries surfaces as rateLimitExceeded with retryAfter")
    func rateLimitSurfaces() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(maxRetries: 1), transportFactory: server.factory)
        try await client.connect()
        server.service.rateLimitNext(5)
        let outcome = await result { () async throws -> String in try await client.api.limited() }
        #expect(outcome == .failure(.rateLimitExceeded(retryAfter: 0.2)))
        #expect(server.service.calls("limited") == 2)
        await client.disconnect()
    }

    @Test("a per-request timeout fails a slow call with timeout, and the global timeout applies otherwise")
    func timeouts() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(maxRetries: 0, timeout: 0.3), transportFactory: server.factory)
        try await client.connect()
        let perRequest = await result { () async throws -> String in
            try await client.api.slow(ms: 5000).timeout(.milliseconds(100)).resolved()
        }
        #expect(perRequest == .failure(.timeout))
        let global = await result { () async throws -> String in try await client.api.slow(ms: 5000).resolved() }
        #expect(global == .failure(.timeout))
        let longer = await result { () async throws -> String in
            try await client.api.slow(ms: 500).timeout(.seconds(30)).resolved()
        }
        #expect(longer == .success("done"))
        await client.disconnect()
    }

    @Test("a call that reached the server and timed out is not sent again; marked idempotent it is, up to maxRetries")
    func timedOutCallsRetriedOnlyWhenIdempotent() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(maxRetries: 2), transportFactory: server.factory)
        try await client.connect()
        let plain = await result { () async throws -> String in
            try await client.api.slow(ms: 5000).timeout(.milliseconds(150)).resolved()
        }
        #expect(plain == .failure(.timeout))
        #expect(await waitUntil { server.service.calls("slow") >= 1 })
        #expect(server.service.calls("slow") == 1)
        let safe = await result { () async throws -> String in
            try await client.api.slow(ms: 5000).timeout(.milliseconds(150)).idempotent().resolved()
        }
        #expect(safe == .failure(.timeout))
        // The first attempt and two retries.
        #expect(await waitUntil { server.service.calls("slow") >= 4 })
        #expect(server.service.calls("slow") == 4)
        await client.disconnect()
    }

    @Test("updateHeader on a connected client opens a new connection carrying the header before it returns")
    func headerOnReconnect() async throws {
        let server = InMemoryServer()
        var configuration = InMemoryServer.configuration()
        configuration.headers = ["Authorization": "Bearer old"]
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        await client.updateHeader("Authorization", value: "Bearer new")
        #expect(server.connects == 2)
        #expect(server.headers.map { $0["Authorization"] } == ["Bearer old", "Bearer new"])
        let value: Int = try await client.api.square(n: 4)
        #expect(value == 16)
        #expect(server.connects == 2)
        await client.disconnect()
    }

    @Test("concurrent connects both return connected, and a disconnected client can connect again")
    func connectAgain() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        async let first: Void = client.connect()
        async let second: Void = client.connect()
        _ = try await (first, second)
        #expect(await client.isConnected)
        #expect(server.connects == 1)
        await client.disconnect()
        #expect(await client.isConnected == false)
        let offline = await result { () async throws -> Int in try await client.api.square(n: 2) }
        guard case .failure(.connectionLost) = offline else {
            Issue.record("expected connectionLost, got \(offline)")
            return
        }
        try await client.connect()
        let value: Int = try await client.api.square(n: 3)
        #expect(value == 9)
        #expect(server.connects == 2)
        await client.disconnect()
    }

    @Test("reconnect() reopens the connection at once, with the current headers")
    func explicitReconnect() async throws {
        let server = InMemoryServer()
        var configuration = InMemoryServer.configuration()
        configuration.headers = ["Authorization": "Bearer old"]
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        await client.reconnect()
        #expect(await waitUntil { server.connects == 2 })
        #expect(server.headers.map { $0["Authorization"] } == ["Bearer old", "Bearer old"])
        let value: Int = try await client.api.square(n: 4)
        #expect(value == 16)
        await client.disconnect()
    }

    @Test("a client never connected fails calls at once with connectionLost")
    func notConnected() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(maxRetries: 0), transportFactory: server.factory)
        let outcome = await result { () async throws -> Int in try await client.api.square(n: 2) }
        guard case .failure(.connectionLost) = outcome else {
            Issue.record("expected connectionLost, got \(outcome)")
            return
        }
    }
}
