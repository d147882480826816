#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
internal import RpcTransport
internal import RpcTransportNIO
public import CapnWebCore

extension RpcSession {
    /// Runs `execute` against the server's main object over HTTP batch: every call made in it
    /// travels in one POST, however long `execute` takes between calls. The POST leaves when
    /// `execute` returns, or once a result is awaited and no new call has come for
    /// ``Configuration/batchDelay`` (time for `async let` calls to join); the calls made in
    /// the batch and still held then go with it, their results asked for.
    ///
    /// ```swift
    /// let (user, posts) = try await RpcSession<API>.batch(url: url) { api in
    ///     async let user: User = api.users.get(id: 123)
    ///     async let posts: [Post] = api.posts.forUser(id: 123)
    ///     return try await (user, posts)
    /// }
    /// ```
    ///
    /// A call (or an await that needs the server) made after the POST left fails at once with
    /// ``RpcError/connectionLost(_:)`` whose error is named `BatchAlreadySent`; after the answer
    /// arrives the batch session ends and refs from it are dead.
    ///
    /// - Parameters:
    ///   - url: An `http://` or `https://` URL.
    ///   - configure: Changes the default ``Configuration`` (headers, TLS, timeout, batch delay).
    ///   - execute: Makes the calls.
    /// - Returns: What `execute` returns.
    /// - Throws: ``RpcError/connectionLost(_:)`` with a ``TransportError`` of code ``TransportError/Code/invalidTarget``
    ///   for a URL with another scheme; what `execute`
    ///   throws, which includes ``RpcError/connectionLost(_:)`` with the
    ///   ``TransportError`` when the server answers other than 200.
    public static func batch<T>(
        url: URL,
        configure: ((inout Configuration) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        execute: (Ref<API>) async throws -> T
    ) async throws -> T {
        var configuration = Configuration()
        configure?(&configuration)
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw RpcError.invalidTarget("a batch URL must start with http:// or https://, not '\(url.absoluteString)'")
        }
        var clientConfiguration = HTTPBatchClientConfiguration()
        clientConfiguration.headers = WebSocketConnector.headers(configuration.headers)
        clientConfiguration.tls = configuration.tls
        clientConfiguration.connectTimeout = configuration.connectTimeout
        clientConfiguration.requestTimeout = configuration.timeout
        clientConfiguration.maxResponseBodySize = configuration.limits.maxMessageSize
        clientConfiguration.observability = configuration.observability
        let client: HTTPBatchClient
        do {
            client = try HTTPBatchClient(url: url.absoluteString, configuration: clientConfiguration)
        } catch {
            throw RpcError.connectionLost(error)
        }
        let outcome: Result<T, any Error>
        do {
            outcome = .success(
                try await runBatch(configuration: configuration, exchange: { messages throws(TransportError) in
                    try await client.exchange(messages)
                }, execute: execute))
        } catch {
            outcome = .failure(error)
        }
        await client.close()
        return try outcome.get()
    }
}
