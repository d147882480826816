public import CapnWebCore
public import Hummingbird
import CapnWebNIO
import RpcTransportHummingbird
import RpcTransportNIO

extension RouterMethods {
    /// Serves Cap'n Web at `path` on this router, behind its middleware: WebSocket sessions
    /// (`GET` with an upgrade) and HTTP batches (`POST`) on the same path, each with a main
    /// object made from the request and its context (the user an authentication middleware
    /// put there, say). The sessions are those of ``CapnWebNIO/withRpcServer(host:port:tls:deflate:configuration:main:isolation:_:)``.
    ///
    /// ```swift
    /// let router = Router(context: AppRequestContext.self)
    /// router.add(middleware: BearerAuthMiddleware())
    /// router.addCapnWeb("/rpc") { request, context in Api(user: context.user) }
    /// let app = Application(router: router, server: .http1WebSocketTransports(webSocketRouter: router))
    /// ```
    ///
    /// The application's server must upgrade WebSockets through this router
    /// (`.http1WebSocketTransports(webSocketRouter:)`): a WebSocket its middleware refuses gets
    /// the middleware's answer, and an accepted one is our `WebSocketTransport`, with
    /// permessage-deflate and messages (in one frame or several) up to the session's
    /// `limits.maxMessageSize`, at least 32 MiB. A `GET` without an upgrade gets 405.
    ///
    /// - Parameters:
    ///   - path: Where the endpoint is.
    ///   - configuration: The sessions' call timeout and limits.
    ///   - maxBatchBodySize: The largest batch body read, in bytes; a larger one gets 413.
    ///     Default 32 MiB.
    ///   - main: Makes the main object of each WebSocket session and each batch. An error it
    ///     throws refuses the upgrade or the batch as Hummingbird answers that error.
    /// - Returns: The router, to chain more routes.
    @discardableResult
    public func addCapnWeb(
        _ path: RouterPath,
        configuration: CapnWebCore.Configuration = CapnWebCore.Configuration(),
        maxBatchBodySize: Int = 32 * 1024 * 1024,
        main: @escaping @Sendable (_ request: Request, _ context: Context) async throws -> any RpcTarget
    ) -> Self {
        var transport = HummingbirdTransportConfiguration(deflate: .default)
        transport.maxMessageSize = max(transport.maxMessageSize, configuration.limits.maxMessageSize)
        // Any message the limits allow may come as one frame (the reference sends one per message).
        transport.maxFrameSize = max(transport.maxFrameSize, transport.maxMessageSize)
        let settings = transport
        get(path) { request, context -> Response in
            guard WebSocketUpgradeRequest.isRequested(by: request) else {
                return Response(status: .methodNotAllowed)
            }
            let target = try await main(request, context)
            // The trace context the client sent with the upgrade, if any, is the parent of the
            // session's spans.
            let headers = WebSocketUpgradeRequest(request).headers
            return request.upgrade(.accept(), configuration: settings) { connection in
                await RpcEndpoint.serveSession(
                    over: connection, main: target, configuration: configuration, upgradeHeaders: headers)
            }
        }
        post(path) { request, context -> Response in
            let batch: HTTPServerRequest
            do throws(TransportError) {
                batch = try await HTTPServerRequest(request, maxBodySize: maxBatchBodySize)
            } catch {
                return Response(HTTPServerResponse(status: error.httpStatus ?? 400, text: error.message))
            }
            let target = try await main(request, context)
            return Response(await RpcEndpoint.answerBatch(batch, configuration: configuration) { target })
        }
        return self
    }
}
