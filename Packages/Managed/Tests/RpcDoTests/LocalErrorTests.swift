import RpcDo
import Testing

@Suite("Local failures stay local")
struct LocalErrorTests {
    /// An interceptor's own error, which no layer knows about.
    struct PolicyFailure: Error, CustomStringConvertible {
        var description: String { "no calls after midnight" }
    }

    /// An interceptor that refuses every call with its own error.
    struct RefusingInterceptor: ClientInterceptor {
        func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
            throw PolicyFailure()
        }
    }

    @Test("a result decoded as the wrong type fails with invalidResponse, a local failure")
    func wrongResultType() async throws {
        try await ClientFeatureTests.withClient { client, _ in
            let outcome = await result { () async throws -> String in try await client.api.square(n: 3) }
            guard case .failure(let error) = outcome else {
                Issue.record("expected a failure, got \(outcome)")
                return
            }
            guard case .invalidResponse = error else {
                Issue.record("expected invalidResponse, got \(error)")
                return
            }
            #expect(error.rpcFailure.origin == .local)
            #expect(error.rpcFailure.code == .internalError)
        }
    }

    @Test("an interceptor's own error fails the call as a local error naming it, never as remote")
    func interceptorError() async throws {
        try await ClientFeatureTests.withClient(interceptors: [RefusingInterceptor()]) { client, server in
            let outcome = await result { () async throws -> Int in try await client.api.square(n: 3) }
            guard case .failure(let error) = outcome else {
                Issue.record("expected a failure, got \(outcome)")
                return
            }
            #expect(error == .invalidArgument("PolicyFailure: no calls after midnight"))
            #expect(error.rpcFailure.origin == .local)
            #expect(server.service.calls("square") == 0)
        }
    }

    @Test("a decoding failure thrown by an interceptor is invalidResponse, a local failure")
    func interceptorDecodingError() async throws {
        struct DecodingInterceptor: ClientInterceptor {
            func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad cache entry"))
            }
        }
        try await ClientFeatureTests.withClient(interceptors: [DecodingInterceptor()]) { client, _ in
            let outcome = await result { () async throws -> Int in try await client.api.square(n: 3) }
            guard case .failure(let error) = outcome, case .invalidResponse = error else {
                Issue.record("expected invalidResponse, got \(outcome)")
                return
            }
            #expect(error.rpcFailure.origin == .local)
        }
    }

    @Test("an RpcError an interceptor throws passes unchanged")
    func interceptorRpcError() async throws {
        try await ClientFeatureTests.withClient(interceptors: [DenyInterceptor()]) { client, _ in
            let outcome = await result { () async throws -> RpcValue in try await client.api.forbidden() }
            #expect(outcome == .failure(.authenticationFailed("denied by policy")))
        }
    }
}
