import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
@_spi(ChannelHandlers) public import RpcTransportNIO

/// The server side of a loopback benchmark, run in a process of its own (see
/// ``ServerProcess``): it listens on a free loopback port, prints `PORT <n>` and serves until
/// its standard input closes, so it never outlives the driver.
public enum LoopbackServer {
    /// Runs the floor: a WebSocket echo built only from SwiftNIO's pieces (the HTTP server
    /// upgrader with `NIOWebSocketServerUpgrader` and ``BareEchoHandler``), behind the
    /// package's TLS handler when `tls` is given, until standard input closes.
    public static func serveBareEcho(tls: TLSServerConfiguration?) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BareEchoHandler())
                }
            }
        )
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(TLSChannelHandlers.serverHandler(tls))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        announce(port: channel.localAddress?.port ?? 0)
        await standardInputClosed()
        try await channel.close()
    }

    /// Prints the `PORT <n>` line ``ServerProcess`` waits for.
    public static func announce(port: Int) {
        FileHandle.standardOutput.write(Data("PORT \(port)\n".utf8))
    }

    /// Returns once standard input reaches its end, which happens when the driver exits or
    /// closes the pipe.
    public static func standardInputClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                while !FileHandle.standardInput.availableData.isEmpty {}
                continuation.resume()
            }
        }
    }
}

/// The floor: echoes each data frame as one unmasked frame with the same opcode, answers pings
/// and close frames, and flushes once per read burst. Nothing else.
final class BareEchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var needsFlush = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            let echo = WebSocketFrame(fin: true, opcode: frame.opcode, data: frame.unmaskedData)
            context.write(wrapOutboundOut(echo), promise: nil)
            needsFlush = true
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.write(wrapOutboundOut(pong), promise: nil)
            needsFlush = true
        case .connectionClose:
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(close)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }
}
