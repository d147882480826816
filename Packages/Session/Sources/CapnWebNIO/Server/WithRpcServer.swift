internal import RpcTransport
public import RpcTransportNIO
public import CapnWebCore

/// Runs a Cap'n Web server while `body` runs: WebSocket sessions on any path and HTTP batches
/// (POST; other methods get 405) on one port, each with a fresh main object from `main`. When
/// `body` returns or throws, every session is closed and the server shuts down gracefully.
///
/// ```swift
/// try await withRpcServer(port: 8080, main: { Calculator() }) { server in
///     print("listening on", server.webSocketURL)
///     try await Task.sleep(for: .seconds(3600))
/// }
/// ```
///
/// - Parameters:
///   - host: The address to listen on (default `127.0.0.1`).
///   - port: The port; 0 (the default) picks a free one, read it from ``RpcServer/port``.
///   - tls: TLS settings; `nil` (the default) for plaintext.
///   - deflate: permessage-deflate, used with each WebSocket client that offers it (as browsers
///     and node's `ws` do); `nil` refuses it. Default ``PerMessageDeflateConfiguration/default``.
///   - configuration: The sessions' call timeout and limits.
///   - main: Makes the main object of each connection and each batch.
///   - body: What to do while the server runs.
/// - Returns: What `body` returns.
/// - Throws: ``TransportError`` when the server cannot listen, or what `body` throws.
public func withRpcServer<T>(
    host: String = "127.0.0.1",
    port: Int = 0,
    tls: TLSServerConfiguration? = nil,
    deflate: PerMessageDeflateConfiguration? = .default,
    configuration: Configuration = Configuration(),
    main: @escaping @Sendable () -> any RpcTarget,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RpcServer) async throws -> T
) async throws -> T {
    try await withRpcServer(
        host: host, port: port, tls: tls, deflate: deflate, configuration: configuration, admit: nil,
        main: { _ in main() }, isolation: isolation, body)
}

/// Runs a Cap'n Web server that admits each WebSocket connection and HTTP batch with `admit`
/// before reading any of its messages, and makes each main object from what it knows about
/// the request (path, headers, peer); otherwise like
/// ``withRpcServer(host:port:tls:deflate:configuration:main:isolation:_:)``.
///
/// ```swift
/// try await withRpcServer(
///     admit: { info in
///         info.header("authorization") == "Bearer \(token)" ? .accept : .refuse(status: 401)
///     },
///     main: { info in Inbox(user: info.header("x-user") ?? "guest") }
/// ) { server in
///     try await Task.sleep(for: .seconds(3600))
/// }
/// ```
///
/// - Parameters:
///   - admit: Decides about each request before its session starts: a refused WebSocket gets
///     the status as the answer to its upgrade, a refused batch as the answer to its POST.
///     `nil` (the default) admits every request.
///   - host: The address to listen on (default `127.0.0.1`).
///   - port: The port; 0 (the default) picks a free one, read it from ``RpcServer/port``.
///   - tls: TLS settings; `nil` (the default) for plaintext.
///   - deflate: permessage-deflate, used with each WebSocket client that offers it (as browsers
///     and node's `ws` do); `nil` refuses it. Default ``PerMessageDeflateConfiguration/default``.
///   - configuration: The sessions' call timeout and limits.
///   - main: Makes the main object of each admitted connection and batch.
///   - body: What to do while the server runs.
/// - Returns: What `body` returns.
/// - Throws: ``TransportError`` when the server cannot listen, or what `body` throws.
public func withRpcServer<T>(
    host: String = "127.0.0.1",
    port: Int = 0,
    tls: TLSServerConfiguration? = nil,
    deflate: PerMessageDeflateConfiguration? = .default,
    configuration: Configuration = Configuration(),
    admit: (@Sendable (RpcConnectionInfo) async -> RpcAdmission)? = nil,
    main: @escaping @Sendable (RpcConnectionInfo) -> any RpcTarget,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RpcServer) async throws -> T
) async throws -> T {
    var serverConfiguration = TransportServerConfiguration(address: .host(host, port: port), tls: tls, deflate: deflate)
    serverConfiguration.maxMessageSize = max(serverConfiguration.maxMessageSize, configuration.limits.maxMessageSize)
    // Any message the limits allow may come as one frame (the reference sends one per message).
    serverConfiguration.maxFrameSize = max(serverConfiguration.maxFrameSize, serverConfiguration.maxMessageSize)
    serverConfiguration.shutdownGracePeriod = .seconds(2)
    if let admit {
        serverConfiguration.upgradeHook = { request in
            guard let status = await admit(RpcConnectionInfo(request)).refusalStatus else { return .accept() }
            return .reject(status: status)
        }
    }
    let holder = RpcServerHolder()
    let makeMain = main
    return try await withTransportServer(
        configuration: serverConfiguration,
        onConnection: { transport, request in
            guard let server = holder.server else { return }
            await server.serve(transport, request: request)
        },
        onBatch: { request in
            guard let server = holder.server else {
                throw TransportError(code: .serverShutdown, message: "the server is not running")
            }
            if let admit, let status = await admit(RpcConnectionInfo(request)).refusalStatus {
                throw TransportError(code: .httpStatus, message: "the server refused the request", httpStatus: status)
            }
            return try await server.answer(request)
        }
    ) { transportServer in
        let server = RpcServer(
            host: host,
            port: transportServer.port ?? port,
            usesTLS: tls != nil,
            configuration: configuration,
            makeMain: makeMain,
            transportServer: transportServer)
        holder.server = server
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(server))
        } catch {
            outcome = .failure(error)
        }
        // Not accepting first, so that no client reconnects while its session is closed.
        await transportServer.stopAccepting()
        await server.closeAll()
        server.finishObservers()
        return try outcome.get()
    }
}
