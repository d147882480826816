import NIOCore
import NIOPosix

/// A TCP server that answers every connection's first bytes with fixed bytes, whatever was
/// asked, for feeding a client responses no well-behaved server would send.
enum CannedHTTPServer {
    private final class Answer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let bytes: [UInt8]

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        }
    }

    /// Runs `body` with the port of a server that answers with `response`.
    static func run<T>(answering response: String, _ body: (Int) async throws -> T) async throws -> T {
        let bytes = Array(response.utf8)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Answer(bytes: bytes))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        do {
            let result = try await body(channel.localAddress?.port ?? 0)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }
}
