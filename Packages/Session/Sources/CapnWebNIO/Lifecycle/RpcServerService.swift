public import CapnWebCore
internal import RpcTransport
public import RpcTransportNIO
public import ServiceLifecycle

/// A Cap'n Web server as a `Service` of a swift-service-lifecycle `ServiceGroup`: it serves
/// from the moment the group runs it until the group shuts down gracefully, then it stops
/// accepting, lets the calls in flight finish (``RpcServer/shutdownGracefully(drainTimeout:)``)
/// and closes the remaining sessions with 1001 (going away).
///
/// ```swift
/// let server = RpcServerService(port: 8080, main: { _ in Calculator() }) { server in
///     print("READY \(server.webSocketURL)")
/// }
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public struct RpcServerService: Service {
    private let service: ScopedService<RpcServer>

    /// Creates the service; the server listens once the service runs.
    ///
    /// - Parameters:
    ///   - host: The address to listen on (default `127.0.0.1`).
    ///   - port: The port; 0 (the default) picks a free one.
    ///   - tls: TLS settings; `nil` (the default) for plaintext.
    ///   - deflate: permessage-deflate with the clients that offer it; `nil` refuses it.
    ///   - configuration: The sessions' call timeout and limits.
    ///   - drainTimeout: How long a graceful shutdown lets calls in flight finish before it
    ///     closes the sessions (default ``RpcServer/defaultDrainTimeout``).
    ///   - admit: Decides about each request before its session starts; `nil` admits all.
    ///   - main: Makes the main object of each connection and each batch.
    ///   - onStart: Called with the running server (to announce it, say); a graceful shutdown
    ///     cancels it, and an error it throws stops the service.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        tls: TLSServerConfiguration? = nil,
        deflate: PerMessageDeflateConfiguration? = .default,
        configuration: Configuration = Configuration(),
        drainTimeout: Duration = RpcServer.defaultDrainTimeout,
        admit: (@Sendable (RpcConnectionInfo) async -> RpcAdmission)? = nil,
        main: @escaping @Sendable (RpcConnectionInfo) -> any RpcTarget,
        onStart: @escaping @Sendable (RpcServer) async throws -> Void = { _ in }
    ) {
        service = ScopedService(
            open: { body in
                try await withRpcServer(
                    host: host, port: port, tls: tls, deflate: deflate, configuration: configuration, admit: admit,
                    main: main
                ) { server in try await body(server) }
            },
            use: { server in
                try await onStart(server)
                try await ScopedService<RpcServer>.untilShutdown()
            },
            stop: { server in await server.shutdownGracefully(drainTimeout: drainTimeout) }
        )
    }

    /// Serves until the group shuts down gracefully (then drains and closes) or cancels it.
    ///
    /// - Throws: ``TransportError`` when the server cannot listen, what `onStart`
    ///   throws, or `CancellationError` when the service was cancelled.
    public func run() async throws {
        try await service.run()
    }
}
