import NIOCore

/// Sits in front of the HTTP decoder of a server connection and tells the HTTP handler when
/// bytes arrive, so that the request read timeout runs from a request's first byte: a head that
/// trickles in byte by byte is bounded as its body is, although the decoder hands nothing on
/// until the head is whole.
///
/// Removed with the HTTP handlers when the connection upgrades to WebSocket. Every method runs
/// on the connection's event loop.
final class RequestStartObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The handler told; weak, as it holds this observer to remove it on upgrade.
    private weak var handler: ServerHTTPHandler?

    init(handler: ServerHTTPHandler) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        handler?.requestBytesArrived()
        context.fireChannelRead(data)
    }
}
