import NIOCore
@testable import RpcTransportNIO

/// The last handler of a test client's pipeline: it records what the TLS handler passes on.
final class TLSClientProbe: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let handshakeEvent: EventLoopPromise<TLSHandshakeCompleted>
    private let echo: EventLoopPromise<ByteBuffer>
    private let outcome: EventLoopPromise<Void>
    private let expectedBytes: Int
    private var received = ByteBuffer()

    /// - Parameters:
    ///   - handshakeEvent: succeeded by the ``TLSHandshakeCompleted`` user event.
    ///   - echo: succeeded once `expectedBytes` bytes arrived (never, when it is 0).
    ///   - outcome: failed with the first error caught, or succeeded when the channel closes
    ///     without one.
    init(
        handshakeEvent: EventLoopPromise<TLSHandshakeCompleted>,
        echo: EventLoopPromise<ByteBuffer>,
        outcome: EventLoopPromise<Void>,
        expectedBytes: Int
    ) {
        self.handshakeEvent = handshakeEvent
        self.echo = echo
        self.outcome = outcome
        self.expectedBytes = expectedBytes
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let completed = event as? TLSHandshakeCompleted {
            handshakeEvent.succeed(completed)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        if expectedBytes > 0, received.readableBytes >= expectedBytes {
            echo.succeed(received)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(with: error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        outcome.succeed(())
        complete(with: TLSTestWait.Stopped())
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        complete(with: TLSTestWait.Stopped())
    }

    /// Fails whatever is still pending; completed promises keep their first outcome.
    private func complete(with error: any Error) {
        handshakeEvent.fail(error)
        echo.fail(error)
        outcome.fail(error)
    }
}

@available(*, unavailable)
extension TLSClientProbe: Sendable {}
