/// Middleware around every call: authentication, logging, metrics, policy.
///
/// Interceptors run in the order they are configured, the first one outermost; each one calls
/// `next` to continue (at most once, in place) or throws to stop the call. An interceptor may
/// change the ``ClientCall`` it passes on, for example its timeout or its idempotency.
///
/// ```swift
/// struct Logging: ClientInterceptor {
///     func intercept<Output>(
///         _ call: ClientCall,
///         next: (ClientCall) async throws -> Output
///     ) async throws -> Output {
///         print("->", call.method)
///         defer { print("<-", call.method) }
///         return try await next(call)
///     }
/// }
/// ```
public protocol ClientInterceptor: Sendable {
    /// Runs around one call; `next` runs the rest of the chain and the call itself.
    func intercept<Output>(
        _ call: ClientCall,
        next: (ClientCall) async throws -> Output
    ) async throws -> Output
}

extension Array where Element == any ClientInterceptor {
    /// Runs `call` through the interceptors in order, then `body`.
    func run<Output>(
        _ call: ClientCall,
        from index: Int = 0,
        body: (ClientCall) async throws -> Output
    ) async throws -> Output {
        guard index < count else { return try await body(call) }
        return try await self[index].intercept(call) { call in
            try await self.run(call, from: index + 1, body: body)
        }
    }
}
