import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import RpcTransportNIO

/// The connections of ``HummingbirdCore/HTTPServerBuilder/http1WebSocketTransports(webSocketRouter:configuration:)``:
/// HTTP/1.1 served by the application's responder, except a first request that is a WebSocket
/// opening handshake, which the WebSocket router answers (``RoutedWebSocketUpgrader``). An
/// accepted one makes the connection our ``RpcTransportNIO/WebSocketTransport``; the answer to
/// one it did not accept (its middleware's 401, say) is sent as the router gave it.
struct TransportUpgradeChannel<WebSocketResponder: HTTPResponder>: ServerChildChannel, HTTPChannelHandler
where WebSocketResponder.Context: RequestContext & InitializableFromSource<ApplicationRequestContextSource> {
    /// A connection being set up: what its first request became.
    struct Value: ServerChildChannelValue {
        let outcome: EventLoopFuture<TransportUpgradeOutcome>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let webSocketResponder: WebSocketResponder
    let configuration: HTTP1Channel.Configuration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let upgrader = RoutedWebSocketUpgrader(responder: webSocketResponder, eventLoop: channel.eventLoop, logger: logger)
            let refusal = upgrader.refusal
            let configuration = self.configuration
            let upgrades = NIOTypedHTTPServerUpgradeConfiguration<TransportUpgradeOutcome>(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try pipeline.addHandlers(configuration.additionalChannelHandlers())
                        try pipeline.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: configuration.idleTimeout.map { Duration($0) }, logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        if let response = refusal.value {
                            return .refused(http, response)
                        }
                        return .http(http)
                    }
                })
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrades)
            // Hummingbird's HTTP handling reads one request at a time and answers parse errors.
            pipeline.enablePipelining = false
            pipeline.enableErrorHandling = false
            pipeline.decoderConfiguration.maxHeaderFieldSize = configuration.httpDecoder.maxHeaderFieldSize
            pipeline.decoderConfiguration.maxHeaderListSize = configuration.httpDecoder.maxHeaderListSize
            pipeline.decoderConfiguration.maxHeaderFieldCount = configuration.httpDecoder.maxHeaderFieldCount
            let outcome = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline)
            return Value(outcome: outcome, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        let outcome: TransportUpgradeOutcome
        do {
            outcome = try await value.outcome.get()
        } catch {
            logger.debug("the connection's first request failed", metadata: ["error": "\(error)"])
            return
        }
        switch outcome {
        case .http(let http):
            await handleHTTP(asyncChannel: http, logger: logger)
        case .refused(let http, let response):
            await send(response, on: http, logger: logger)
        case .webSocket(let transport, let onConnection):
            await withTaskCancellationHandler {
                await onConnection(transport)
            } onCancel: {
                transport.beginClose(code: .goingAway, reason: "server shutting down")
            }
            await transport.close(code: .normal, reason: "")
        }
    }

    /// Sends the router's answer to a handshake it did not accept, then closes the connection.
    private func send(_ response: Response, on http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger) async {
        var response = response
        response.headers[.connection] = "close"
        do {
            try await http.executeThenClose { _, outbound in
                try await ResponseWriter(outbound: outbound).write(response: response.head, body: response.body)
            }
        } catch {
            logger.debug("the answer to a refused WebSocket handshake was not sent", metadata: ["error": "\(error)"])
        }
    }
}
