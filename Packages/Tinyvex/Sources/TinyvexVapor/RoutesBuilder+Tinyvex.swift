public import Vapor
public import TinyvexServer
import RpcTransportVapor
import RpcTransportNIO

extension RoutesBuilder {
    /// Serves Tinyvex's WebSocket endpoint at `path` on this builder, behind its middleware,
    /// with `server`'s schema, store and limits; a `GET` that does not upgrade gets 405.
    ///
    /// `authenticate` is each connection's auth hook, and it sees the request the connection
    /// came with: it is given the token the client sends in `tinyvex/connect` or
    /// `tinyvex/auth.setToken`, or `nil` when it sends none, and returns the identity (`nil`
    /// for none; for a token, a refusal). Without it the server's own
    /// ``TinyvexServer/TinyvexServerConfiguration/authenticate`` hook is used.
    ///
    /// ```swift
    /// try await TinyvexServer.withEmbeddedServer(schema: schema) { server in
    ///     app.grouped(UserAuthenticator()).addTinyvex("sync", server: server) { request, token in
    ///         request.auth.get(User.self)?.name
    ///     }
    ///     try await app.execute()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to serve, below this builder's own path.
    ///   - server: The server to serve (``TinyvexServer/TinyvexServer/withEmbeddedServer(schema:database:configuration:isolation:_:)``).
    ///   - authenticate: Each connection's auth hook, given its request and the client's token.
    public func addTinyvex(
        _ path: PathComponent...,
        server: TinyvexServer,
        authenticate: (@Sendable (Request, String?) async throws -> String?)? = nil
    ) {
        let settings = server.transportConfiguration
        on(.GET, path) { request -> Response in
            guard request.isWebSocketUpgrade else {
                return Response(status: .methodNotAllowed)
            }
            // The trace context the client sent with the upgrade, if any, is the parent of the
            // connection's spans.
            let headers = request.headers
            return request.upgrade(.accept(), configuration: settings) { connection in
                if let authenticate {
                    await server.serve(connection, upgradeHeaders: headers) { token in try await authenticate(request, token) }
                } else {
                    await server.serve(connection, upgradeHeaders: headers)
                }
            }
        }
    }
}
