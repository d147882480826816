package import NIOCore
package import NIOHTTP1
import NIOWebSocket

/// The server side of a WebSocket upgrade that another HTTP server (a web framework's router)
/// has already decided to accept, for this package's framework adapters: NIO's upgrader checks
/// the key and version and computes the accept value, and this one then installs this package's
/// connection handler with a ``TransportServer``'s limits, permessage-deflate and keepalive, so
/// the connection is the same ``WebSocketTransport`` a ``TransportServer`` would have accepted.
///
/// Make one per upgrade; its callbacks run on the connection's event loop. The host server
/// removes its HTTP handlers before ``upgrade(context:upgradeRequest:)`` (a server on NIO's
/// upgrade handler) or ``adopt(_:)`` (one on NIO's typed upgrade handler, whose own upgrader
/// makes the transport its upgrade's result), as NIO's upgrade handlers do.
package final class AdoptedWebSocketUpgrader: HTTPServerProtocolUpgrader {
    package let supportedProtocol = "websocket"
    package let requiredUpgradeHeaders: [String] = []

    private let configuration: TransportServerConfiguration
    private let state: NIOLoopBound<ServerUpgradeState>
    private let keyHandling: NIOWebSocketServerUpgrader
    private let onUpgrade: @Sendable (WebSocketTransport) -> Void

    /// An upgrader that accepts with `subprotocol` (one the client offered, or `nil`) and
    /// agrees on permessage-deflate when `configuration.deflate` is set and the client offers
    /// an acceptable form of it.
    ///
    /// - Parameters:
    ///   - configuration: The limits of the connection; its address, TLS and HTTP settings are
    ///     not used.
    ///   - subprotocol: The subprotocol to answer with.
    ///   - eventLoop: The connection's event loop; the upgrader is used there only.
    ///   - onUpgrade: Receives the open transport of an upgrade through
    ///     ``upgrade(context:upgradeRequest:)`` (not ``adopt(_:)``), on the event loop; it must
    ///     not block.
    package init(
        configuration: TransportServerConfiguration,
        subprotocol: String?,
        eventLoop: any EventLoop,
        onUpgrade: @escaping @Sendable (WebSocketTransport) -> Void = { _ in }
    ) {
        let upgradeState = ServerUpgradeState()
        upgradeState.subprotocol = subprotocol
        let state = NIOLoopBound(upgradeState, eventLoop: eventLoop)
        self.configuration = configuration
        self.state = state
        self.onUpgrade = onUpgrade
        let deflate = configuration.deflate
        self.keyHandling = NIOWebSocketServerUpgrader(
            maxFrameSize: configuration.connectionSettings.upgraderMaxFrameSize,
            automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                var headers = HTTPHeaders()
                if let subprotocol {
                    headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
                }
                if let deflate,
                    let agreement = PerMessageDeflateNegotiation.serverAgreement(
                        offerHeaderValues: head.headers["Sec-WebSocket-Extensions"], configuration: deflate)
                {
                    headers.add(name: "Sec-WebSocket-Extensions", value: agreement.responseHeaderValue)
                    state.value.agreedDeflate = agreement.agreed
                }
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, _ in channel.eventLoop.makeSucceededVoidFuture() }
        )
    }

    package func buildUpgradeResponse(
        channel: any Channel,
        upgradeRequest: HTTPRequestHead,
        initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        keyHandling.buildUpgradeResponse(
            channel: channel, upgradeRequest: upgradeRequest, initialResponseHeaders: initialResponseHeaders)
    }

    package func upgrade(context: ChannelHandlerContext, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<Void> {
        let onUpgrade = self.onUpgrade
        return adopt(context.channel).map { transport in onUpgrade(transport) }
    }

    /// Makes the channel the HTTP handlers have left our transport, after
    /// ``buildUpgradeResponse(channel:upgradeRequest:initialResponseHeaders:)`` agreed on the
    /// handshake; on the channel's event loop. The channel is closed if that fails.
    package func adopt(_ channel: any Channel) -> EventLoopFuture<WebSocketTransport> {
        do {
            EventLoopTaskExecutor.bindCurrentLoop()
            let settings = configuration.connectionSettings
            var codec: PerMessageDeflateCodec?
            if let agreed = state.value.agreedDeflate, let deflate = configuration.deflate {
                codec = try PerMessageDeflateCodec(
                    agreed: agreed, configuration: deflate, maximumMessageSize: settings.maxMessageSize)
            }
            let transport = try WebSocketTransport.install(
                on: channel, settings: settings, subprotocol: state.value.subprotocol, codec: codec)
            try channel.pipeline.syncOperations.addHandler(QuiesceHandler(transport: transport))
            return channel.eventLoop.makeSucceededFuture(transport)
        } catch {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
    }

    /// Closes the connection with 1001 (going away) when the host server quiesces, as a
    /// ``TransportServer`` closes its own WebSocket connections when it shuts down.
    private final class QuiesceHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer

        private weak var transport: WebSocketTransport?

        init(transport: WebSocketTransport) {
            self.transport = transport
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent {
                transport?.closeOnLoop(code: .goingAway, reason: "server shutting down")
                return
            }
            context.fireUserInboundEventTriggered(event)
        }
    }
}

extension WebSocketTransport {
    /// Starts the close handshake without waiting for it, from any thread: for a host server's
    /// adapter that closes its connections when it shuts down.
    package func beginClose(code: CloseCode, reason: String) {
        closeOnLoop(code: code, reason: reason)
    }
}
