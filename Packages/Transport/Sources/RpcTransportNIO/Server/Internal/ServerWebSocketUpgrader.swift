import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The server side of the upgrade to WebSocket: NIO's upgrader checks the key and version and
/// computes the accept value (consulting the server's decision), this one installs the frame
/// decoder and the connection handler. Created per connection, used on its event loop.
final class ServerWebSocketUpgrader: HTTPServerProtocolUpgrader {
    let supportedProtocol = "websocket"
    let requiredUpgradeHeaders: [String] = []

    private let core: ServerCore
    private let state: ServerUpgradeState
    private let httpHandler: ServerHTTPHandler
    private let keyHandling: NIOWebSocketServerUpgrader

    init(
        core: ServerCore,
        state: ServerUpgradeState,
        httpHandler: ServerHTTPHandler,
        shouldUpgrade: @escaping @Sendable (any Channel, HTTPRequestHead) -> EventLoopFuture<HTTPHeaders?>
    ) {
        self.core = core
        self.state = state
        self.httpHandler = httpHandler
        self.keyHandling = NIOWebSocketServerUpgrader(
            maxFrameSize: core.configuration.connectionSettings.upgraderMaxFrameSize,
            automaticErrorHandling: false,
            shouldUpgrade: shouldUpgrade,
            upgradePipelineHandler: { channel, _ in channel.eventLoop.makeSucceededVoidFuture() }
        )
    }

    func buildUpgradeResponse(
        channel: any Channel,
        upgradeRequest: HTTPRequestHead,
        initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        keyHandling.buildUpgradeResponse(
            channel: channel, upgradeRequest: upgradeRequest, initialResponseHeaders: initialResponseHeaders)
    }

    func upgrade(context: ChannelHandlerContext, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<Void> {
        ServerChildPipeline.completeUpgrade(channel: context.channel, core: core, state: state, httpHandler: httpHandler)
    }
}
