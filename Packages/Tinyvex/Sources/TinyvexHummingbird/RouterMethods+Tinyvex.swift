public import Hummingbird
public import TinyvexServer
import RpcTransportHummingbird
import RpcTransportNIO

extension RouterMethods {
    /// Serves the Tinyvex endpoint at `path` on this router, behind its middleware: each
    /// WebSocket is a Tinyvex connection of `server` (one from
    /// ``TinyvexServer/TinyvexServer/withEmbeddedServer(schema:database:configuration:isolation:_:)``).
    ///
    /// ```swift
    /// try await TinyvexServer.withEmbeddedServer(schema: schema) { server in
    ///     let router = Router(context: AppRequestContext.self)
    ///     router.add(middleware: BearerAuthMiddleware())
    ///     router.addTinyvex("/tinyvex", server: server) { token, request, context in
    ///         context.user?.name
    ///     }
    ///     let app = Application(router: router, server: .http1WebSocketTransports(webSocketRouter: router))
    ///     try await app.runService()
    /// }
    /// ```
    ///
    /// The application's server must upgrade WebSockets through this router
    /// (`.http1WebSocketTransports(webSocketRouter:)`): a WebSocket its middleware refuses gets
    /// the middleware's answer, and an accepted one is our `WebSocketTransport` with the server's
    /// ``TinyvexServer/TinyvexServer/transportConfiguration``. A `GET` without an upgrade gets 405.
    ///
    /// - Parameters:
    ///   - path: Where the endpoint is.
    ///   - server: The Tinyvex server that answers.
    ///   - authenticate: The connection's auth hook, given the token the client sent in
    ///     `tinyvex/connect` or `tinyvex/auth.setToken` (`nil` when it sent none) and the upgrade
    ///     request with its context (the user a middleware authenticated, say); it returns the
    ///     identity, as ``TinyvexServer/TinyvexServer/ConnectionAuthenticate`` describes. `nil`
    ///     (the default) uses the server's ``TinyvexServer/TinyvexServerConfiguration/authenticate``.
    /// - Returns: The router, to chain more routes.
    @discardableResult
    public func addTinyvex(
        _ path: RouterPath,
        server: TinyvexServer,
        authenticate: (@Sendable (_ token: String?, _ request: Request, _ context: Context) async throws -> String?)? = nil
    ) -> Self {
        let settings = server.transportConfiguration
        get(path) { request, context -> Response in
            guard WebSocketUpgradeRequest.isRequested(by: request) else {
                return Response(status: .methodNotAllowed)
            }
            // The trace context the client sent with the upgrade, if any, is the parent of the
            // connection's spans.
            let headers = WebSocketUpgradeRequest(request).headers
            return request.upgrade(.accept(), configuration: settings) { connection in
                guard let authenticate else {
                    await server.serve(connection, upgradeHeaders: headers)
                    return
                }
                await server.serve(connection, upgradeHeaders: headers) { token in
                    try await authenticate(token, request, context)
                }
            }
        }
        return self
    }
}
