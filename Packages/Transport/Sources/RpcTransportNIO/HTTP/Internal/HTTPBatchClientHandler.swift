import NIOCore
import NIOHTTP1
import RpcTransport

/// Runs one request at a time on a client connection and collects its response, bounded in
/// size and time. Lives on the connection's event loop.
final class HTTPBatchClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private struct Pending {
        var promise: EventLoopPromise<HTTPBatchResponse>
        var head: HTTPResponseHead?
        var body: ByteBuffer
        var timer: Scheduled<Void>?
    }

    private let maxBodySize: Int
    private var context: ChannelHandlerContext?
    private var pending: Pending?

    init(maxBodySize: Int) {
        self.maxBodySize = max(maxBodySize, 0)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(TransportError(code: .ioError, message: "the connection closed before the response arrived"))
        self.context = nil
    }

    /// Sends a request; `promise` gets the response.
    func execute(
        head: HTTPRequestHead,
        body: ByteBuffer,
        timeout: TimeAmount,
        promise: EventLoopPromise<HTTPBatchResponse>
    ) {
        guard pending == nil, let context, context.channel.isActive else {
            promise.fail(TransportError(code: .ioError, message: "the connection is not usable"))
            return
        }
        let timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.fail(TransportError(code: .ioError, message: "no response within the request timeout"))
            self.context?.close(promise: nil)
        }
        pending = Pending(promise: promise, head: nil, body: context.channel.allocator.buffer(capacity: 0), timer: timer)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var current = pending else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if HTTPDeclaredLength.exceeds(maxBodySize, in: head.headers) {
                tooLarge(context: context)
                return
            }
            current.head = head
            pending = current
        case .body(var chunk):
            guard current.body.readableBytes + chunk.readableBytes <= maxBodySize else {
                tooLarge(context: context)
                return
            }
            pending = nil  // keep the body uniquely referenced while appending
            current.body.writeBuffer(&chunk)
            pending = current
        case .end:
            pending = nil
            current.timer?.cancel()
            guard let head = current.head else {
                current.promise.fail(TransportError(code: .ioError, message: "response ended without a head"))
                return
            }
            current.promise.succeed(HTTPBatchResponse(head: head, body: current.body))
        }
    }

    private func tooLarge(context: ChannelHandlerContext) {
        fail(
            TransportError(
                code: .messageTooLarge, message: "the response body exceeds \(maxBodySize) bytes")
        )
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(TransportError(code: .ioError, message: "the connection closed before the response arrived"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure =
            error as? TransportError
            ?? TransportError(code: .ioError, message: "the connection failed: \(error)", cause: error)
        fail(failure)
        context.close(promise: nil)
    }

    private func fail(_ error: TransportError) {
        guard let current = pending else { return }
        pending = nil
        current.timer?.cancel()
        current.promise.fail(error)
    }
}
