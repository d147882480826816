public import Hummingbird
public import RpcTransportNIO
import HTTPTypes

extension Request {
    /// Answers a WebSocket upgrade as `decision` says: a refused one with its status, an
    /// accepted one by handing the connection, once the server has sent 101, to `onConnection`
    /// as one of our ``RpcTransportNIO/WebSocketTransport``s (with `configuration`'s limits,
    /// compression and keepalive). The transport is closed normally when `onConnection` returns,
    /// and with 1001 (going away) when the application shuts down first.
    ///
    /// The application's server must be ``HummingbirdCore/HTTPServerBuilder/http1WebSocketTransports(webSocketRouter:configuration:)``
    /// with this route's router: it asks the router, middleware included, about each opening
    /// handshake and upgrades the ones a route accepts here; every other answer (a middleware's
    /// 401, a refusal here) is sent to the client as it is.
    ///
    /// A request that is not a valid opening handshake (a `GET` with `connection: upgrade`,
    /// `upgrade: websocket`, a key and version 13) is answered with 400, an accepted subprotocol
    /// the client did not offer with 500, and so is a handshake the server did not hand over
    /// (another server, or a handshake after other requests on the same connection).
    ///
    /// ```swift
    /// router.get("/echo") { request, _ in
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
        configuration: HummingbirdTransportConfiguration = HummingbirdTransportConfiguration(),
        onConnection: @escaping @Sendable (WebSocketTransport) async -> Void
    ) -> Response {
        if let status = decision.refusalStatus {
            return Response(status: HTTPResponse.Status(code: status))
        }
        guard isOpeningHandshake else {
            return Response(status: .badRequest)
        }
        if let subprotocol = decision.subprotocol, !WebSocketUpgradeRequest(self).offeredSubprotocols.contains(subprotocol) {
            return Response(status: .internalServerError)
        }
        guard let upgrade = RouteUpgrade.current else {
            return Response(status: .internalServerError)
        }
        upgrade.accept(
            RouteUpgrade.Acceptance(
                configuration: configuration.serverConfiguration, subprotocol: decision.subprotocol, onConnection: onConnection))
        return Response(status: .switchingProtocols)
    }

    /// Whether the request is a WebSocket opening handshake a server can accept.
    private var isOpeningHandshake: Bool {
        let connection = headers[values: .connection].flatMap { $0.lowercased().split(separator: ",") }
        return method == .get && WebSocketUpgradeRequest.isRequested(by: self)
            && connection.contains { $0.filter { $0 != " " && $0 != "\t" } == "upgrade" }
            && headers[.secWebSocketVersion] == "13" && !(headers[.secWebSocketKey] ?? "").isEmpty
    }
}
