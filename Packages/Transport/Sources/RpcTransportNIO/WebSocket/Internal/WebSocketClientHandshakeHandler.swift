import NIOCore
import NIOHTTP1
import RpcTransport

/// Sends the opening handshake request once connected and turns every way the handshake can
/// end other than a valid 101 answer into the connect error: another status, a refused answer,
/// a TLS failure, a timeout or a closed connection.
final class WebSocketClientHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let handshake: WebSocketClientHandshake
    private var requestSent = false

    init(handshake: WebSocketClientHandshake) {
        self.handshake = handshake
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            sendRequest(context: context)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context: context)
        context.fireChannelActive()
    }

    private func sendRequest(context: ChannelHandlerContext) {
        guard !requestSent else { return }
        requestSent = true
        handshake.startTimer(on: context.channel)
        context.write(wrapOutboundOut(.head(handshake.requestHead)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let response) = unwrapInboundIn(data), handshake.isPending else { return }
        let error: TransportError
        if let refusal = handshake.refusal {
            error = refusal
        } else if response.status == .switchingProtocols {
            error = TransportError(
                code: .handshakeFailed, message: "the server switched protocols without a valid upgrade answer")
        } else {
            error = TransportError(
                code: .upgradeRejected,
                message: "the server answered the upgrade with \(response.status.code) \(response.status.reasonPhrase)",
                httpStatus: Int(response.status.code)
            )
        }
        handshake.fail(error, closing: context.channel)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure: TransportError
        if let error = error as? TransportError {
            failure = error
        } else if let refusal = handshake.refusal {
            failure = refusal
        } else {
            failure = TransportError(
                code: .handshakeFailed, message: "the opening handshake failed: \(error)", cause: error)
        }
        handshake.fail(failure, closing: context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshake.fail(
            handshake.refusal
                ?? TransportError(code: .handshakeFailed, message: "the connection closed during the opening handshake"),
            closing: nil
        )
        context.fireChannelInactive()
    }
}
