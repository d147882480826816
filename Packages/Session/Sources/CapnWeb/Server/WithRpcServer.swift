internal import RpcTransport
public import RpcTransportNIO

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
///   - configuration: The sessions' call timeout and limits.
///   - main: Makes the main object of each connection and each batch.
///   - body: What to do while the server runs.
/// - Returns: What `body` returns.
/// - Throws: ``RpcTransport/TransportError`` when the server cannot listen, or what `body` throws.
public func withRpcServer<T>(
    host: String = "127.0.0.1",
    port: Int = 0,
    tls: TLSServerConfiguration? = nil,
    configuration: Configuration = Configuration(),
    main: @escaping @Sendable () -> any RpcTarget,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RpcServer) async throws -> T
) async throws -> T {
    var serverConfiguration = TransportServerConfiguration(address: .host(host, port: port), tls: tls)
    serverConfiguration.maxMessageSize = max(serverConfiguration.maxMessageSize, configuration.limits.maxMessageSize)
    serverConfiguration.shutdownGracePeriod = .seconds(2)
    let holder = RpcServerHolder()
    let makeMain = main
    return try await withTransportServer(
        configuration: serverConfiguration,
        onConnection: { transport, _ in
            guard let server = holder.server else { return }
            await server.serve(transport)
        },
        onBatch: { request in
            guard let server = holder.server else {
                throw TransportError(code: .serverShutdown, message: "the server is not running")
            }
            return try await server.answer(request)
        }
    ) { transportServer in
        let server = RpcServer(
            host: host,
            port: transportServer.port ?? port,
            usesTLS: tls != nil,
            configuration: configuration,
            makeMain: makeMain)
        holder.server = server
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(server))
        } catch {
            outcome = .failure(error)
        }
        await server.closeAll()
        server.finishObservers()
        return try outcome.get()
    }
}
