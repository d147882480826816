import NIOCore

/// A peer that does not speak TLS: it writes an HTTP response, closes, or stays quiet.
final class TLSPlaintextPeerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let behaviour: TLSTestServer.PlaintextBehaviour

    init(behaviour: TLSTestServer.PlaintextBehaviour) {
        self.behaviour = behaviour
    }

    func channelActive(context: ChannelHandlerContext) {
        switch behaviour {
        case .writeGarbage:
            let response = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
            context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(string: response)), promise: nil)
        case .close:
            context.close(promise: nil)
        case .stayQuiet:
            break
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Whatever the client sends is ignored.
    }
}

@available(*, unavailable)
extension TLSPlaintextPeerHandler: Sendable {}
