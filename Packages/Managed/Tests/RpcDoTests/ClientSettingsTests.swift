import CapnWeb
import CapnWebTesting
import Foundation
import RpcDo
import RpcTransport
import Synchronization
import Testing

/// The main object of the header and TLS tests: it answers with the `Authorization` header of
/// the WebSocket upgrade its connection was opened with.
final class TokenEcho: RpcTarget {
    let token: String
    let state: ServiceState
    init(token: String, state: ServiceState) {
        self.token = token
        self.state = state
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        state.record(method)
        switch method {
        case "token":
            return .string(token)
        case "slowToken":
            try await Task.sleep(for: .milliseconds(try arguments.decode(0, as: Int.self)))
            return .string(token)
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

@Suite("RpcClient settings: headers, TLS, metadata and error descriptions")
struct ClientSettingsTests {
    static func configuration(_ url: URL) -> RpcClientConfiguration {
        var configuration = RpcClientConfiguration(url: url, timeout: 10, maxRetries: 3, retryBaseDelay: 0.02, maxRetryDelay: 0.5)
        configuration.reconnect = .exponentialBackoff(maxAttempts: 100, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200))
        return configuration
    }

    @Test("updateHeader makes the very next call carry the new header, and a call in flight finishes unharmed")
    func updateHeaderAppliesToNextCall() async throws {
        let state = ServiceState()
        try await withRpcServer(main: { info in TokenEcho(token: info.header("Authorization") ?? "none", state: state) }) { server in
            var configuration = Self.configuration(server.webSocketURL)
            configuration.headers = ["Authorization": "Bearer one"]
            let client = RpcClient(configuration: configuration)
            try await client.connect()
            let before: String = try await client.api.token()
            #expect(before == "Bearer one")

            async let inFlight: Result<String, RpcError> = result { try await client.api.slowToken(ms: 400) }
            #expect(await waitUntil { state.calls("slowToken") == 1 })
            await client.updateHeader("Authorization", value: "Bearer two")
            // No reconnect of our own and no wait: the next call goes on a connection whose
            // upgrade carried the new token.
            let after: String = try await client.api.token()
            #expect(after == "Bearer two")
            // The call sent before the change was answered on the old connection, once.
            #expect(await inFlight == .success("Bearer one"))
            #expect(state.calls("slowToken") == 1)

            // Removing the header applies the same way.
            await client.updateHeader("Authorization", value: nil)
            let none: String = try await client.api.token()
            #expect(none == "none")
            await client.disconnect()
        }
    }

    @Test("a header changed before connect is used by the first connection")
    func updateHeaderBeforeConnect() async throws {
        let state = ServiceState()
        try await withRpcServer(main: { info in TokenEcho(token: info.header("Authorization") ?? "none", state: state) }) { server in
            let client = RpcClient(configuration: Self.configuration(server.webSocketURL))
            await client.updateHeader("Authorization", value: "Bearer early")
            try await client.connect()
            let token: String = try await client.api.token()
            #expect(token == "Bearer early")
            await client.disconnect()
        }
    }

    @Test("a wss:// client with the test CA as its trust roots talks to a TLS server; without it the handshake fails")
    func tlsTrustRoots() async throws {
        let certificates = try await CertificateFixture.shared()
        let tls = certificates.serverConfiguration(.server)
        let state = ServiceState()
        try await withRpcServer(tls: tls, main: { _ in TokenEcho(token: "over TLS", state: state) }) { server in
            #expect(server.webSocketURL.scheme == "wss")
            var configuration = Self.configuration(server.webSocketURL)
            // Seed 004's pattern, with our types.
            configuration.tls = .init(
                certificateChain: [],     // Empty for client-only auth
                privateKey: nil,          // Nil for client-only auth
                serverCertificateVerification: .fullVerification,
                trustRoots: certificates.trustTestCA
            )
            let client = RpcClient(configuration: configuration)
            try await client.connect()
            let answer: String = try await client.api.token()
            #expect(answer == "over TLS")
            await client.disconnect()

            // The system's roots do not know the test certificate.
            var untrusted = Self.configuration(server.webSocketURL)
            untrusted.reconnect = .exponentialBackoff(maxAttempts: 1, baseDelay: .milliseconds(20), maxDelay: .milliseconds(20))
            let refused = RpcClient(configuration: untrusted)
            await #expect(throws: RpcError.self) { try await refused.connect() }
            await refused.disconnect()
            #expect(state.calls("token") == 1)
        }
    }

    @Test("TLS settings with a ws:// URL are refused at connect instead of being ignored")
    func tlsNeedsWss() async throws {
        var configuration = RpcClientConfiguration(url: try #require(URL(string: "ws://127.0.0.1:1/rpc")))
        configuration.tls = .default
        let client = RpcClient(configuration: configuration)
        await #expect(throws: RpcError.invalidArgument("TLS settings need a wss:// URL, not 'ws://127.0.0.1:1/rpc'")) {
            try await client.connect()
        }
    }

    /// What the interceptors saw, in order.
    final class SeenLog: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// Reads the caller's `tenant` metadata, records it, and passes a changed copy on.
    struct TenantStamp: ClientInterceptor {
        let seen: SeenLog
        func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
            seen.append("outer:\(call.metadata["tenant"] ?? "-")")
            var call = call
            call.metadata["tenant"] = (call.metadata["tenant"] ?? "default").uppercased()
            call.metadata["stamped"] = "yes"
            return try await next(call)
        }
    }

    /// Records what the outer interceptor passed on; refuses calls for the tenant `BLOCKED`.
    struct TenantPolicy: ClientInterceptor {
        let seen: SeenLog
        func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
            seen.append("inner:\(call.metadata["tenant"] ?? "-"),\(call.metadata["stamped"] ?? "-")")
            if call.metadata["tenant"] == "BLOCKED" { throw RpcError.authenticationFailed("tenant blocked") }
            return try await next(call)
        }
    }

    @Test("per-call metadata reaches the interceptors, which can read and change it for the next one")
    func metadataThroughInterceptors() async throws {
        let seen = SeenLog()
        let server = InMemoryServer()
        var configuration = InMemoryServer.configuration()
        configuration.interceptors = [TenantStamp(seen: seen), TenantPolicy(seen: seen)]
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        let square: Int = try await client.api.square(n: 3).withMetadata(["tenant": "acme"])
        #expect(square == 9)
        let plain: Int = try await client.api.square(n: 2)
        #expect(plain == 4)
        let blocked = await result { () async throws -> Int in
            try await client.api.square(n: 4).withMetadata(["tenant": "blocked"])
        }
        #expect(blocked == .failure(.authenticationFailed("tenant blocked")))
        #expect(seen.all == [
            "outer:acme", "inner:ACME,yes",
            "outer:-", "inner:DEFAULT,yes",
            "outer:blocked", "inner:BLOCKED,yes",
        ])
        // The refused call never reached the server.
        #expect(server.service.calls("square") == 2)
        await client.disconnect()
    }

    @Test("RpcError is a LocalizedError: localizedDescription is a sentence naming the detail")
    func localizedDescriptions() {
        let cases: [(RpcError, String)] = [
            (.notFound("todo 7"), "The server has no such resource: todo 7"),
            (.remote(type: "TypeError", message: "bad"), "The server failed the call (TypeError): bad"),
            (.connectionLost(nil), "The connection to the server was lost."),
            (.timeout, "The server did not answer in time."),
            (.rateLimitExceeded(retryAfter: 2), "Too many calls; the server asks to wait 2.0 seconds before trying again."),
            (.authenticationFailed("Invalid token"), "The server refused the credentials: Invalid token"),
        ]
        for (error, text) in cases {
            #expect(error.localizedDescription == text)
            #expect((error as any Error).localizedDescription == text)
        }
        #expect(RpcError.authenticationFailed("x").recoverySuggestion == "Sign in again.")
    }
}
