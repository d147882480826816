public import Logging
public import NIOCore
public import NIOPosix

/// Creates an ``HTTPBatchClient`` for an `http://` or `https://` URL, runs `body` with it and
/// closes its connections when `body` returns or throws.
///
/// ```swift
/// let replies = try await withHTTPBatchClient(url: "http://127.0.0.1:8080/rpc") { client in
///     try await client.exchange([.text(#"["push",1]"#)])
/// }
/// ```
///
/// - Parameters:
///   - url: Where to POST batches.
///   - configuration: Headers, TLS, timeouts and limits.
///   - eventLoopGroup: Where the connections' I/O runs.
///   - logger: Where client events are logged; silent by default.
///   - isolation: The actor `body` runs on; the caller's by default.
///   - body: What to do with the client.
/// - Returns: What `body` returns.
/// - Throws: The ``TransportError`` of an unusable URL, or what `body` throws.
public func withHTTPBatchClient<Value>(
    url: String,
    configuration: HTTPBatchClientConfiguration = HTTPBatchClientConfiguration(),
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "rpc.transport.http", factory: { _ in SwiftLogNoOpLogHandler() }),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (HTTPBatchClient) async throws -> Value
) async throws -> Value {
    let client = try HTTPBatchClient(
        url: url, configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger)
    let result: Value
    do {
        result = try await body(client)
    } catch {
        await client.close()
        throw error
    }
    await client.close()
    return result
}
