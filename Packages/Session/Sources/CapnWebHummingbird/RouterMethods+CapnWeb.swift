public import CapnWebCore
public import Hummingbird
public import HummingbirdWebSocket
import CapnWebNIO
import RpcTransportHummingbird
import RpcTransportNIO

extension RouterMethods where Context: WebSocketRequestContext {
    /// Serves Cap'n Web at `path` on this router, behind its middleware: WebSocket sessions
    /// (`GET` with an upgrade) and HTTP batches (`POST`) on the same path, each with a main
    /// object made from the request and its context (the user an authentication middleware
    /// put there, say). The sessions are those of ``CapnWebNIO/withRpcServer(host:port:tls:deflate:configuration:main:isolation:_:)``.
    ///
    /// ```swift
    /// let router = Router(context: AppRequestContext.self)
    /// router.add(middleware: BearerAuthMiddleware())
    /// router.addCapnWeb("/rpc") { request, context in Api(user: context.user) }
    /// let app = Application(
    ///     router: router,
    ///     server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 1 << 20))))
    /// ```
    ///
    /// The application's server must upgrade WebSockets through this router
    /// (`.http1WebSocketUpgrade(webSocketRouter:)`) with a `maxFrameSize` as large as the
    /// largest message clients send in one frame. A `GET` without an upgrade gets 405.
    ///
    /// - Parameters:
    ///   - path: Where the endpoint is.
    ///   - configuration: The sessions' call timeout and limits.
    ///   - maxBatchBodySize: The largest batch body read, in bytes; a larger one gets 413.
    ///     Default 32 MiB.
    ///   - main: Makes the main object of each WebSocket session and each batch. An error it
    ///     throws refuses a batch as Hummingbird answers that error, and closes a WebSocket with
    ///     1008 before its first message is read.
    /// - Returns: The router, to chain more routes.
    @discardableResult
    public func addCapnWeb(
        _ path: RouterPath,
        configuration: CapnWebCore.Configuration = CapnWebCore.Configuration(),
        maxBatchBodySize: Int = 32 * 1024 * 1024,
        main: @escaping @Sendable (_ request: Request, _ context: Context) async throws -> any RpcTarget
    ) -> Self {
        var limits = HummingbirdWebSocketTransport.Configuration()
        limits.maxMessageSize = max(limits.maxMessageSize, configuration.limits.maxMessageSize)
        let transportLimits = limits
        ws(
            path,
            shouldUpgrade: { request, _ in
                WebSocketUpgradeRequest.isRequested(by: request) ? .upgrade([:]) : .dontUpgrade
            },
            onUpgrade: { inbound, outbound, webSocketContext in
                await HummingbirdWebSocketTransport.withTransport(
                    inbound: inbound, outbound: outbound, configuration: transportLimits
                ) { transport in
                    let target: any RpcTarget
                    do {
                        target = try await main(webSocketContext.request, webSocketContext.requestContext)
                    } catch {
                        await transport.close(code: .policyViolation, reason: "the session was refused")
                        return
                    }
                    await RpcEndpoint.serveSession(over: transport, main: target, configuration: configuration)
                }
            })
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
