import Logging
import NIOCore
import NIOHTTP1
import RpcTransport

/// Builds the pipeline of an accepted connection: TLS when configured, HTTP/1.1 with the
/// WebSocket upgrader, and the handler for everything that does not upgrade.
enum ServerChildPipeline {
    /// A connection accepted while the server shuts down.
    struct ShuttingDown: Error {}

    /// Configures `channel`; runs on its event loop.
    static func configure(_ channel: any Channel, core: ServerCore) throws {
        guard core.registry.register(channel) else {
            throw ShuttingDown()
        }
        EventLoopTaskExecutor.bindCurrentLoop()
        if let metrics = core.metrics {
            try channel.pipeline.syncOperations.addHandler(ByteCountingHandler(metrics: metrics))
        }
        if let tls = core.tls {
            let handler = try tls.makeServerHandler(
                handshakeTimeout: TimeAmount(core.configuration.handshakeTimeout),
                handshakePromise: nil
            )
            try channel.pipeline.syncOperations.addHandler(handler)
        }
        let upgradeState = ServerUpgradeState()
        let httpHandler = ServerHTTPHandler(core: core, upgradeState: upgradeState)
        let boundState = NIOLoopBound(upgradeState, eventLoop: channel.eventLoop)
        let upgrader = ServerWebSocketUpgrader(
            core: core,
            state: upgradeState,
            httpHandler: httpHandler,
            shouldUpgrade: { channel, head in
                shouldUpgrade(channel: channel, head: head, core: core, state: boundState)
            }
        )
        try channel.pipeline.syncOperations.addHandler(httpHandler.makeStartObserver())
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }),
            withErrorHandling: true
        )
        let operations = channel.pipeline.syncOperations
        let errorHandler = try operations.handler(type: HTTPServerProtocolErrorHandler.self)
        try operations.addHandler(ShutdownParseErrorFilter(core: core), position: .before(errorHandler))
        try channel.pipeline.syncOperations.addHandler(httpHandler)
    }

    /// Decides about an upgrade request: the response headers to accept it, `nil` to refuse it
    /// (the refusal status is left in `state` for the HTTP handler).
    private static func shouldUpgrade(
        channel: any Channel,
        head: HTTPRequestHead,
        core: ServerCore,
        state: NIOLoopBound<ServerUpgradeState>
    ) -> EventLoopFuture<HTTPHeaders?> {
        let eventLoop = channel.eventLoop
        guard head.method == .GET else {
            state.value.refusal = .methodNotAllowed
            return eventLoop.makeSucceededFuture(nil)
        }
        guard core.acceptsWebSockets else {
            state.value.refusal = .notFound
            return eventLoop.makeSucceededFuture(nil)
        }
        guard !core.registry.isShuttingDown else {
            state.value.refusal = .serviceUnavailable
            return eventLoop.makeSucceededFuture(nil)
        }
        let offered = head.headers["Sec-WebSocket-Protocol"]
            .flatMap { $0.split(separator: ",") }
            .map { String($0).trimmingASCIISpaces() }
            .filter { !$0.isEmpty }
        let request = WebSocketUpgradeRequest(
            path: ServerCore.path(of: head.uri),
            uri: head.uri,
            headers: head.headers,
            remoteAddress: channel.remoteAddress,
            offeredSubprotocols: offered
        )
        let extensionOffers = head.headers["Sec-WebSocket-Extensions"]
        guard core.configuration.upgradeHook != nil else {
            return eventLoop.makeSucceededFuture(
                decide(.accept(), request: request, extensionOffers: extensionOffers, core: core, state: state.value)
            )
        }
        let promise = eventLoop.makePromise(of: WebSocketUpgradeDecision.self)
        core.work.yield(.upgrade(request, ServerReply(promise: promise)))
        return promise.futureResult.map { decision in
            decide(decision, request: request, extensionOffers: extensionOffers, core: core, state: state.value)
        }.recover { _ in
            state.value.refusal = .serviceUnavailable
            return nil
        }
    }

    private static func decide(
        _ decision: WebSocketUpgradeDecision,
        request: WebSocketUpgradeRequest,
        extensionOffers: [String],
        core: ServerCore,
        state: ServerUpgradeState
    ) -> HTTPHeaders? {
        switch decision.outcome {
        case .reject(let status):
            state.refusal = HTTPResponseStatus(statusCode: status)
            return nil
        case .accept(let subprotocol):
            var headers = HTTPHeaders()
            if let subprotocol {
                guard request.offeredSubprotocols.contains(subprotocol) else {
                    core.logger.error(
                        "the upgrade hook picked a subprotocol the client did not offer",
                        metadata: ["subprotocol": "\(subprotocol)"]
                    )
                    state.refusal = .internalServerError
                    return nil
                }
                headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
            }
            if let deflate = core.configuration.deflate,
                let agreement = PerMessageDeflateNegotiation.serverAgreement(
                    offerHeaderValues: extensionOffers, configuration: deflate)
            {
                headers.add(name: "Sec-WebSocket-Extensions", value: agreement.responseHeaderValue)
                state.agreedDeflate = agreement.agreed
            }
            state.request = request
            state.subprotocol = subprotocol
            return headers
        }
    }

    /// Replaces the HTTP handler with the WebSocket connection handler (which reads frames itself) and
    /// hands the new connection to the server's task group.
    static func completeUpgrade(
        channel: any Channel,
        core: ServerCore,
        state: ServerUpgradeState,
        httpHandler: ServerHTTPHandler
    ) -> EventLoopFuture<Void> {
        do {
            let operations = channel.pipeline.syncOperations
            _ = operations.removeHandler(httpHandler)
            if let observer = httpHandler.startObserver {
                _ = operations.removeHandler(observer)
            }
            if let filter = try? operations.handler(type: ShutdownParseErrorFilter.self) {
                _ = operations.removeHandler(filter)
            }
            let settings = core.configuration.connectionSettings
            var codec: PerMessageDeflateCodec?
            if let agreed = state.agreedDeflate, let deflate = core.configuration.deflate {
                codec = try PerMessageDeflateCodec(
                    agreed: agreed, configuration: deflate, maximumMessageSize: settings.maxMessageSize)
            }
            let transport = try WebSocketTransport.install(
                on: channel, settings: settings, subprotocol: state.subprotocol, codec: codec)
            let request =
                state.request
                ?? WebSocketUpgradeRequest(
                    path: "/", uri: "/", headers: [:], remoteAddress: channel.remoteAddress, offeredSubprotocols: [])
            guard core.registry.register(transport) else {
                transport.closeOnLoop(code: .goingAway, reason: "server shutting down")
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            if case .terminated = core.work.yield(.connection(transport, request)) {
                transport.closeOnLoop(code: .goingAway, reason: "server shutting down")
            }
            return channel.eventLoop.makeSucceededVoidFuture()
        } catch {
            core.logger.debug("WebSocket upgrade failed", metadata: ["error": "\(error)"])
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
    }
}
