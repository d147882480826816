public import Vapor
public import CapnWebCore
public import RpcTransportVapor
import CapnWebNIO
public import RpcTransportNIO

extension RoutesBuilder {
    /// Serves Cap'n Web at `path` on this builder, behind its middleware: a `GET` that upgrades
    /// to WebSocket is one session for the life of the connection, a `POST` is one HTTP batch
    /// (the body read up to `transport`'s ``RpcTransportVapor/VaporTransportConfiguration/maxRequestBodySize``,
    /// larger ones refused with 413); another `GET` gets 405. Each session gets its own main
    /// object, made by `main` from the request once the middleware has run, so what the
    /// middleware learnt (the authenticated user, say) is there.
    ///
    /// ```swift
    /// app.grouped(UserAuthenticator(), User.guardMiddleware())
    ///     .addCapnWeb("rpc") { request in Api(user: try request.auth.require(User.self)) }
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to serve, below this builder's own path.
    ///   - configuration: The sessions' call timeout and limits.
    ///   - transport: The WebSocket's limits and compression and the batch body limit; its
    ///     message size is raised to `configuration`'s when that is larger.
    ///   - main: Makes the main object of each WebSocket session and batch, before the session
    ///     starts. Throwing refuses the request: an `AbortError`'s status is the answer
    ///     (Vapor's error middleware writes it).
    public func addCapnWeb(
        _ path: PathComponent...,
        configuration: Configuration = Configuration(),
        transport: VaporTransportConfiguration = .capnWeb,
        main: @escaping @Sendable (_ request: Request) async throws -> any RpcTarget
    ) {
        var transport = transport
        transport.maxMessageSize = max(transport.maxMessageSize, configuration.limits.maxMessageSize)
        // Any message the limits allow may come as one frame (the reference sends one per message).
        transport.maxFrameSize = max(transport.maxFrameSize, transport.maxMessageSize)
        let settings = transport
        on(.GET, path) { request async throws -> Response in
            guard request.isWebSocketUpgrade else {
                return Response(status: .methodNotAllowed, headers: ["allow": "POST"])
            }
            let target = try await main(request)
            let headers = request.headers
            return request.upgrade(.accept(), configuration: settings) { connection in
                await RpcEndpoint.serveSession(
                    over: connection, main: target, configuration: configuration, upgradeHeaders: headers)
            }
        }
        on(.POST, path, body: .stream) { request async throws -> Response in
            let batch: HTTPServerRequest
            do throws(TransportError) {
                batch = try await request.serverRequest(maxBodySize: settings.maxRequestBodySize)
            } catch {
                return Response(HTTPServerResponse(status: error.httpStatus ?? 400, text: error.message))
            }
            let target = try await main(request)
            return Response(await RpcEndpoint.answerBatch(batch, configuration: configuration) { target })
        }
    }
}

extension VaporTransportConfiguration {
    /// The settings of Cap'n Web's own server: permessage-deflate with clients that offer it,
    /// batches up to 32 MiB, the other limits at their defaults.
    public static var capnWeb: VaporTransportConfiguration {
        VaporTransportConfiguration(deflate: .default, maxRequestBodySize: 32 * 1024 * 1024)
    }
}
