import NIOCore

/// Writes every inbound buffer back, flushing at the end of each read burst.
final class TLSEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }
}

@available(*, unavailable)
extension TLSEchoHandler: Sendable {}
