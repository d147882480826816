import RpcTransportNIO

/// Starts an actor server, runs `body` with it and shuts it down when `body` returns or throws.
///
/// ```swift
/// var registry = ActorRegistry()
/// registry.register(counter)
/// try await withActorServer(registry: registry, store: try SQLiteActorStore(path: "actors.sqlite")) { server in
///     print("READY \(server.endpoint)")
///     try await Task.sleep(for: .seconds(3600))
/// }
/// ```
///
/// - Parameters:
///   - registry: The actor types offered.
///   - store: Where actors and their state are kept.
///   - configuration: Address, token and limits.
///   - isolation: The actor `body` runs on; the caller's by default.
///   - body: What to do while the server runs.
/// - Returns: What `body` returns.
/// - Throws: The transport's error when the server cannot listen, or what `body` throws.
public func withActorServer<Value>(
    registry: ActorRegistry,
    store: any ActorStore,
    configuration: ActorServerConfiguration = ActorServerConfiguration(),
    isolation: isolated (any _Concurrency.Actor)? = #isolation,
    _ body: (ActorServer) async throws -> Value
) async throws -> Value {
    try await withActorGateway(registry: registry, store: store, configuration: configuration, isolation: isolation) { gateway in
        let core = gateway.core
        var transportConfiguration = TransportServerConfiguration(address: .host(configuration.host, port: configuration.port))
        transportConfiguration.upgradeHook = { request in ActorServerCore.decideUpgrade(request) }
        transportConfiguration.maxMessageSize = configuration.maxMessageSize
        transportConfiguration.maxFrameSize = configuration.maxMessageSize
        transportConfiguration.maxRequestBodySize = configuration.maxMessageSize
        transportConfiguration.requestTooLargeResponse = { limit in ActorServerCore.tooLargeResponse(limit: limit) }
        transportConfiguration.maxPendingOutboundBytes = configuration.maxPendingBytesPerConnection
        transportConfiguration.outboundBufferLimit = max(configuration.maxPendingBytesPerConnection / 2, 1)
        transportConfiguration.requestReadTimeout = configuration.requestReadTimeout
        transportConfiguration.shutdownGracePeriod = .seconds(2)
        return try await withTransportServer(
            configuration: transportConfiguration,
            onConnection: { transport, request in await core.serve(transport, request: request) },
            onRequest: { request in await core.respond(to: request) },
            isolation: isolation
        ) { transport in
            let server = ActorServer(core: core, transport: transport)
            core.directory.placement?.endpoint = configuration.advertisedEndpoint ?? server.endpoint
            return try await body(server)
        }
    }
}
