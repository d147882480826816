public import Vapor
public import RpcTransport
public import RpcTransportNIO

extension Request {
    /// Whether the request asks to become a WebSocket: a `GET` with `Connection: upgrade` and
    /// `Upgrade: websocket`.
    public var isWebSocketUpgrade: Bool {
        guard method == .GET else { return false }
        let connection = headers[canonicalForm: "connection"].map { $0.lowercased() }
        let upgrade = headers[canonicalForm: "upgrade"].map { $0.lowercased() }
        return connection.contains("upgrade") && upgrade.contains("websocket")
    }

    /// The request as the opening handshake our servers' upgrade hooks and connection handlers
    /// take: path, query, headers, the client's address and the subprotocols it offers.
    ///
    /// - Parameter uri: The request target to describe, for a route mounted under a prefix
    ///   that the protocol does not know about; `nil` (the default) uses the request's own.
    public func webSocketUpgradeRequest(uri: String? = nil) -> WebSocketUpgradeRequest {
        let target = uri ?? url.string
        let request = HTTPServerRequest(method: .GET, uri: target)
        let offered = headers[canonicalForm: "sec-websocket-protocol"]
            .map(String.init)
            .filter { !$0.isEmpty }
        return WebSocketUpgradeRequest(
            path: request.path, uri: target, headers: headers, remoteAddress: remoteAddress,
            offeredSubprotocols: offered)
    }

    /// Reads the request whole into the request our servers' HTTP handlers take.
    ///
    /// Register the route with `body: .stream` so that Vapor does not collect (and limit) the
    /// body first; a body it has already collected is taken as it is.
    ///
    /// ```swift
    /// app.on(.POST, "echo", body: .stream) { request in
    ///     let server = try await request.serverRequest(maxBodySize: 1 << 20)
    ///     return Response(HTTPServerResponse(status: 200, headers: [:], body: server.body))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - maxBodySize: The largest body read, in bytes.
    ///   - uri: The request target to describe; `nil` (the default) uses the request's own.
    /// - Throws: ``RpcTransport/TransportError`` with code `requestTooLarge` and status 413 for
    ///   a body over `maxBodySize` (declared or sent), `ioError` when it cannot be read.
    public func serverRequest(maxBodySize: Int, uri: String? = nil) async throws(TransportError) -> HTTPServerRequest {
        let body = try await BodyCollector.collect(self, limit: max(maxBodySize, 0))
        return HTTPServerRequest(
            method: method, uri: uri ?? url.string, headers: headers, body: body, remoteAddress: remoteAddress)
    }

    /// Answers a WebSocket upgrade as `decision` says: a refused one with its status, an
    /// accepted one with 101, after which the connection is one of our
    /// ``RpcTransportNIO/WebSocketTransport``s (with `configuration`'s limits, compression and
    /// keepalive) handed to `onConnection` in a task the application owns. The transport is
    /// closed normally when `onConnection` returns, and with 1001 (going away) when the
    /// application shuts down first.
    ///
    /// A request that is not a valid opening handshake (see ``isWebSocketUpgrade``, a missing
    /// key, a version other than 13) is answered with 400, and an accepted subprotocol the
    /// client did not offer with 500.
    ///
    /// ```swift
    /// app.get("echo") { request in
    ///     request.upgrade(.accept()) { transport in
    ///         for try await message in transport.inboundMessages() { try transport.enqueue(message) }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - decision: Whether to accept, with which subprotocol, or the refusal status.
    ///   - configuration: The connection's limits.
    ///   - onConnection: Serves the connection; it runs until the connection is to close.
    /// - Returns: The response for the route to return.
    public func upgrade(
        _ decision: WebSocketUpgradeDecision,
        configuration: VaporTransportConfiguration = VaporTransportConfiguration(),
        onConnection: @escaping @Sendable (WebSocketTransport) async -> Void
    ) -> Response {
        if let status = decision.refusalStatus {
            return Response(status: HTTPResponseStatus(statusCode: status))
        }
        guard isWebSocketUpgrade, headers.first(name: "sec-websocket-version") == "13",
            !(headers.first(name: "sec-websocket-key") ?? "").isEmpty
        else {
            return Response(status: .badRequest)
        }
        if let subprotocol = decision.subprotocol,
            !webSocketUpgradeRequest().offeredSubprotocols.contains(subprotocol)
        {
            logger.error(
                "the upgrade decision picked a subprotocol the client did not offer",
                metadata: ["subprotocol": "\(subprotocol)"])
            return Response(status: .internalServerError)
        }
        let response = Response(status: .switchingProtocols)
        response.upgrader = TransportUpgrader(
            configuration: configuration.serverConfiguration,
            subprotocol: decision.subprotocol,
            connections: application.transportConnections,
            onConnection: onConnection)
        return response
    }
}
