public import Logging
public import NIOCore
public import NIOPosix
public import RpcTransport

/// Starts a ``TransportServer``, runs `body` with it and shuts it down gracefully when `body`
/// returns or throws. Every connection and batch handler runs in a task of this call, so none
/// outlives it: handlers still running after the grace period are cancelled.
///
/// ```swift
/// try await withTransportServer(
///     configuration: TransportServerConfiguration(address: .host("127.0.0.1", port: 0)),
///     onConnection: { transport, _ in
///         transport.start { event in
///             if case .message(let message) = event { try? transport.enqueue(message) }
///         }
///         _ = await transport.waitUntilClosed()
///     },
///     onBatch: { request in request.messages }
/// ) { server in
///     print("listening on", server.port ?? 0)
///     try await Task.sleep(for: .seconds(60))
/// }
/// ```
///
/// - Parameters:
///   - configuration: Where to listen and how to treat connections.
///   - eventLoopGroup: Where the connections' I/O runs.
///   - logger: Where server events are logged; silent by default.
///   - onConnection: Runs for each WebSocket connection; the connection is closed (1000) when
///     it returns, so a handler that works through ``WebSocketTransport/start(_:)`` awaits
///     ``WebSocketTransport/waitUntilClosed()``. `nil` answers upgrades with 404.
///   - onBatch: Answers each HTTP batch. A thrown ``TransportError`` with code
///     `httpStatus` and a status from 400 to 599 is answered with that status and the error's
///     message (a refusal, such as 401); any other error becomes a 500 answer. `nil` answers
///     POST requests with 404.
///   - isolation: The actor `body` runs on; the caller's by default.
///   - body: What to do while the server runs.
/// - Returns: What `body` returns.
/// - Throws: ``TransportError`` when the server cannot listen or its TLS settings
///   cannot be used, or what `body` throws.
public func withTransportServer<Value>(
    configuration: TransportServerConfiguration,
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "rpc.transport.server", factory: { _ in SwiftLogNoOpLogHandler() }),
    onConnection: (@Sendable (WebSocketTransport, WebSocketUpgradeRequest) async -> Void)? = nil,
    onBatch: (@Sendable (HTTPBatchRequest) async throws -> [TransportMessage])? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TransportServer) async throws -> Value
) async throws -> Value {
    let server = try await TransportServer.bind(
        configuration: configuration,
        eventLoopGroup: eventLoopGroup,
        logger: logger,
        acceptsWebSockets: onConnection != nil,
        acceptsBatches: onBatch != nil
    )
    return try await run(server, configuration: configuration, isolation: isolation, body) {
        await server.dispatch(onConnection: onConnection, onBatch: onBatch)
    }
}

/// Starts a ``TransportServer`` that routes plain HTTP requests as well as WebSocket upgrades,
/// runs `body` with it and shuts it down gracefully when `body` returns or throws.
///
/// Every request that is not a WebSocket upgrade, whatever its method, reaches `onRequest`
/// with its path, query, headers and whole body (up to
/// ``TransportServerConfiguration/maxRequestBodySize``; larger bodies are answered with 413).
/// Upgrades go through ``TransportServerConfiguration/upgradeHook``, which sees the path and
/// query and picks a subprotocol from the client's offer, and then to `onConnection`.
///
/// ```swift
/// try await withTransportServer(
///     configuration: TransportServerConfiguration(address: .host("127.0.0.1", port: 0)),
///     onRequest: { request in
///         request.method == .GET && request.path == "/metadata"
///             ? HTTPServerResponse(status: 200, json: "{}")
///             : HTTPServerResponse(status: 404, text: "not found")
///     }
/// ) { server in
///     try await Task.sleep(for: .seconds(60))
/// }
/// ```
///
/// - Parameters:
///   - configuration: Where to listen and how to treat connections.
///   - eventLoopGroup: Where the connections' I/O runs.
///   - logger: Where server events are logged; silent by default.
///   - onConnection: Runs for each WebSocket connection, as for the batch form; `nil` answers
///     upgrades with 404.
///   - onRequest: Answers each request. A thrown ``TransportError`` with code
///     `httpStatus` and a status from 400 to 599 is answered with that status and the error's
///     message; any other error becomes a 500 answer.
///   - isolation: The actor `body` runs on; the caller's by default.
///   - body: What to do while the server runs.
/// - Returns: What `body` returns.
/// - Throws: ``TransportError`` when the server cannot listen or its TLS settings
///   cannot be used, or what `body` throws.
public func withTransportServer<Value>(
    configuration: TransportServerConfiguration,
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "rpc.transport.server", factory: { _ in SwiftLogNoOpLogHandler() }),
    onConnection: (@Sendable (WebSocketTransport, WebSocketUpgradeRequest) async -> Void)? = nil,
    onRequest: @escaping @Sendable (HTTPServerRequest) async throws -> HTTPServerResponse,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TransportServer) async throws -> Value
) async throws -> Value {
    let server = try await TransportServer.bind(
        configuration: configuration,
        eventLoopGroup: eventLoopGroup,
        logger: logger,
        acceptsWebSockets: onConnection != nil,
        acceptsBatches: false,
        acceptsRequests: true
    )
    return try await run(server, configuration: configuration, isolation: isolation, body) {
        await server.dispatch(onConnection: onConnection, onBatch: nil, onRequest: onRequest)
    }
}

/// Runs `body` beside the server's dispatch loop, then shuts the server down and waits for its
/// handlers (at most the grace period).
private func run<Value>(
    _ server: TransportServer,
    configuration: TransportServerConfiguration,
    isolation: isolated (any Actor)?,
    _ body: (TransportServer) async throws -> Value,
    dispatch: @escaping @Sendable () async -> Void
) async throws -> Value {
    // Owned here: cancelled with the caller, and always awaited before this returns.
    let dispatching = Task { await dispatch() }
    return try await withTaskCancellationHandler {
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await body(server))
        } catch {
            outcome = .failure(error)
        }
        let deadline = ContinuousClock.now + configuration.shutdownGracePeriod
        await server.shutdown()
        // Whichever ends first: every handler returned, or the grace period is over.
        _ = try? await Deadline.race(until: deadline) { await dispatching.value }
        dispatching.cancel()
        await dispatching.value
        return try outcome.get()
    } onCancel: {
        dispatching.cancel()
    }
}
