public import RpcTransport
public import RpcTransportNIO

/// RivetKit's HTTP surface and gateway WebSocket, for a server other than
/// ``withActorServer(registry:store:configuration:isolation:_:)`` to route to: a web framework's router,
/// say, that reads each request and accepts each WebSocket itself and hands them over here.
/// Every route of ``withActorServer(registry:store:configuration:isolation:_:)`` is answered, with the
/// same actors, store and limits; only the socket is not this package's.
///
/// Get one from ``withActorGateway(registry:store:configuration:isolation:_:)``. Paths are the
/// gateway's own (`/metadata`, `/actors`, `/gateway/…`): a router that mounts it under a
/// prefix removes the prefix first.
///
/// ```swift
/// try await withActorGateway(registry: registry, store: store) { gateway in
///     let response = await gateway.respond(to: request)
/// }
/// ```
public final class ActorGateway: Sendable {
    /// The configuration the gateway runs with; its `host` and `port` are not used.
    public let configuration: ActorServerConfiguration
    let core: ActorServerCore

    init(core: ActorServerCore) {
        self.core = core
        self.configuration = core.configuration
    }

    /// Answers one HTTP request of RivetKit's surface (its body read whole, at most
    /// ``ActorServerConfiguration/maxMessageSize`` bytes: answer a larger one with
    /// ``requestTooLargeResponse()``). Errors become RivetKit error bodies.
    public func respond(to request: HTTPServerRequest) async -> HTTPServerResponse {
        await core.respond(to: request)
    }

    /// The answer to a request whose body is over ``ActorServerConfiguration/maxMessageSize``:
    /// 413 with RivetKit's `message.incoming_too_long` error body.
    public func requestTooLargeResponse() -> HTTPServerResponse {
        ActorServerCore.tooLargeResponse(limit: configuration.maxMessageSize)
    }

    /// Decides about a WebSocket upgrade before it is accepted: a gateway connection or raw
    /// WebSocket path offering the `rivet` subprotocol is accepted with it; another path is
    /// refused with 404, a client that does not offer `rivet` with 400.
    public func decideUpgrade(_ request: WebSocketUpgradeRequest) -> WebSocketUpgradeDecision {
        ActorServerCore.decideUpgrade(request)
    }

    /// Serves one realtime connection (an accepted upgrade that ``decideUpgrade(_:)``
    /// admitted) until it closes and its last action has answered.
    ///
    /// - Parameters:
    ///   - transport: The open connection (a framework's WebSocket, adapted).
    ///   - request: The upgrade request: path, query, headers and the offered subprotocols.
    public func serve(_ transport: any MessageTransport, request: WebSocketUpgradeRequest) async {
        await core.serve(transport, request: request)
    }

    /// The limits of the WebSockets and request bodies a web framework's route hands to this
    /// gateway: the configuration's `maxMessageSize` as the largest message, frame and request
    /// body, its `maxPendingBytesPerConnection` as what may wait for a client (half of it before
    /// sending waits), keepalive pings on.
    public var transportConfiguration: HostedTransportConfiguration {
        var transport = HostedTransportConfiguration(keepalive: WebSocketKeepalive())
        transport.maxMessageSize = configuration.maxMessageSize
        transport.maxFrameSize = configuration.maxMessageSize
        transport.maxRequestBodySize = configuration.maxMessageSize
        transport.maxPendingOutboundBytes = configuration.maxPendingBytesPerConnection
        transport.outboundBufferLimit = max(configuration.maxPendingBytesPerConnection / 2, 1)
        return transport
    }

    /// How many actors are awake (in memory) right now.
    public func awakeActorCount() async -> Int {
        await core.directory.awakeIds.count
    }
}
