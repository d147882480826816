public import Logging
public import NIOCore
public import NIOPosix
import RpcTransport

/// Connects to a `ws://` or `wss://` URL, runs `body` with the connection and closes it when
/// `body` returns (code 1000) or throws (code 1001).
///
/// ```swift
/// let reply = try await withWebSocketConnection(to: "ws://127.0.0.1:8080/rpc") { transport in
///     var inbound = transport.inboundMessages().makeAsyncIterator()
///     try await transport.send(.text("ping"))
///     return try await inbound.next()
/// }
/// ```
///
/// - Parameters:
///   - url: The server's URL.
///   - configuration: Offers, limits and timeouts.
///   - eventLoopGroup: Where the connection's I/O runs.
///   - logger: Where connection events are logged; silent by default.
///   - isolation: The actor `body` runs on; the caller's by default.
///   - body: What to do with the open connection.
/// - Returns: What `body` returns.
/// - Throws: The ``TransportError`` of a failed connect, or what `body` throws.
public func withWebSocketConnection<Result>(
    to url: String,
    configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "rpc.transport.websocket", factory: { _ in SwiftLogNoOpLogHandler() }),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (WebSocketTransport) async throws -> Result
) async throws -> Result {
    let transport = try await WebSocketClient.connect(
        to: url, configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger)
    return try await runClosingAfterwards(transport, body)
}

/// Connects to a target, runs `body` with the connection and closes it when `body` returns
/// (code 1000) or throws (code 1001).
///
/// - Parameters:
///   - target: Where to connect.
///   - path: The path and query to request; `nil` uses ``WebSocketClientConfiguration/path``.
///   - configuration: Offers, limits, TLS and timeouts.
///   - eventLoopGroup: Where the connection's I/O runs.
///   - logger: Where connection events are logged; silent by default.
///   - isolation: The actor `body` runs on; the caller's by default.
///   - body: What to do with the open connection.
/// - Returns: What `body` returns.
/// - Throws: The ``TransportError`` of a failed connect, or what `body` throws.
public func withWebSocketConnection<Result>(
    to target: TransportTarget,
    path: String? = nil,
    configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "rpc.transport.websocket", factory: { _ in SwiftLogNoOpLogHandler() }),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (WebSocketTransport) async throws -> Result
) async throws -> Result {
    let transport = try await WebSocketClient.connect(
        to: target, path: path, configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger)
    return try await runClosingAfterwards(transport, body)
}

private func runClosingAfterwards<Result>(
    _ transport: WebSocketTransport,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (WebSocketTransport) async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body(transport)
    } catch {
        await transport.close(code: .goingAway, reason: "")
        throw error
    }
    await transport.close(code: .normal, reason: "")
    return result
}
