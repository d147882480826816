import NIOCore
import NIOHTTP1
import NIOWebSocket
import RpcTransport

/// The client side of the upgrade to WebSocket: NIO's upgrader adds and checks the key, this
/// one adds the offers (subprotocols, permessage-deflate), checks the answer to them and, on a
/// valid 101, installs the frame decoder and the connection handler.
final class WebSocketClientUpgrader: NIOHTTPClientProtocolUpgrader {
    let supportedProtocol = "websocket"
    let requiredUpgradeHeaders: [String] = []

    private let handshake: WebSocketClientHandshake
    private let keyHandling: NIOWebSocketClientUpgrader
    private let handshakeHandler: WebSocketClientHandshakeHandler

    init(handshake: WebSocketClientHandshake, handshakeHandler: WebSocketClientHandshakeHandler) {
        self.handshake = handshake
        self.handshakeHandler = handshakeHandler
        self.keyHandling = NIOWebSocketClientUpgrader(
            requestKey: NIOWebSocketClientUpgrader.randomRequestKey(),
            maxFrameSize: handshake.settings.upgraderMaxFrameSize,
            automaticErrorHandling: false,
            upgradePipelineHandler: { channel, _ in channel.eventLoop.makeSucceededVoidFuture() }
        )
    }

    func addCustom(upgradeRequestHeaders: inout HTTPHeaders) {
        keyHandling.addCustom(upgradeRequestHeaders: &upgradeRequestHeaders)
        if !handshake.offeredSubprotocols.isEmpty {
            upgradeRequestHeaders.add(
                name: "Sec-WebSocket-Protocol", value: handshake.offeredSubprotocols.joined(separator: ", "))
        }
        if let offer = handshake.deflateOffer {
            upgradeRequestHeaders.add(name: "Sec-WebSocket-Extensions", value: offer.headerValue)
        }
    }

    func shouldAllowUpgrade(upgradeResponse: HTTPResponseHead) -> Bool {
        guard keyHandling.shouldAllowUpgrade(upgradeResponse: upgradeResponse) else {
            handshake.refusal = TransportError(
                code: .handshakeFailed, message: "the server's Sec-WebSocket-Accept is missing or wrong")
            return false
        }
        return handshake.accept(upgradeResponse)
    }

    func upgrade(context: ChannelHandlerContext, upgradeResponse: HTTPResponseHead) -> EventLoopFuture<Void> {
        let channel = context.channel
        do {
            _ = channel.pipeline.syncOperations.removeHandler(handshakeHandler)
            var codec: PerMessageDeflateCodec?
            if let agreed = handshake.agreedDeflate, let deflate = handshake.deflate {
                codec = try PerMessageDeflateCodec(
                    agreed: agreed, configuration: deflate, maximumMessageSize: handshake.settings.maxMessageSize)
            }
            let transport = try WebSocketTransport.install(
                on: channel, settings: handshake.settings, subprotocol: handshake.agreedSubprotocol, codec: codec)
            handshake.succeed(transport)
            return channel.eventLoop.makeSucceededVoidFuture()
        } catch {
            let failure =
                error as? TransportError
                ?? TransportError(code: .handshakeFailed, message: "could not set up the connection: \(error)", cause: error)
            handshake.fail(failure, closing: channel)
            return channel.eventLoop.makeFailedFuture(failure)
        }
    }
}
