import CoreMetrics
import NIOCore

/// First in an accepted connection's pipeline when metrics are on: counts the bytes read from
/// and written to the socket.
final class ByteCountingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let metrics: TransportServerMetrics

    init(metrics: TransportServerMetrics) {
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        metrics.bytesReceived.increment(by: unwrapInboundIn(data).readableBytes)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        metrics.bytesSent.increment(by: unwrapOutboundIn(data).readableBytes)
        context.write(data, promise: promise)
    }
}
