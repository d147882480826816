import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RpcTransport
@_spi(ChannelHandlers) import RpcTransportNIO

/// The server side of the benchmark: `TransportBenchmarks --serve <kind>` runs one echo server on
/// a free loopback port, prints `PORT <n>` and serves until its standard input closes (so it
/// never outlives the driver).
enum EchoServers {
    /// The permessage-deflate settings of the deflate variant: defaults, but every message is
    /// compressed (the default threshold of 256 bytes would leave 128-byte messages alone).
    static let compressEverything = PerMessageDeflateConfiguration(minimumSizeToCompress: 0)

    /// Runs the server of `kind` until standard input closes.
    static func serve(_ kind: ServerKind, options: TransportBenchmarkOptions) async throws {
        switch kind {
        case .ours, .oursDeflate, .oursTLS:
            try await serveOurs(kind, options: options)
        case .bare:
            try await serveBare(tls: nil)
        case .bareTLS:
            try await serveBare(tls: tlsConfiguration(options))
        }
    }

    private static func serveOurs(_ kind: ServerKind, options: TransportBenchmarkOptions) async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.shutdownGracePeriod = .seconds(1)
        if kind == .oursDeflate {
            configuration.deflate = compressEverything
        }
        if kind == .oursTLS {
            configuration.tls = try tlsConfiguration(options)
        }
        try await withTransportServer(
            configuration: configuration,
            onConnection: { transport, _ in
                transport.start { event in
                    if case .message(let message) = event {
                        try? transport.enqueue(message)
                    }
                }
                _ = await transport.waitUntilClosed()
            }
        ) { server in
            announce(port: server.port ?? 0)
            await standardInputClosed()
        }
    }

    private static func tlsConfiguration(_ options: TransportBenchmarkOptions) throws -> TLSServerConfiguration {
        guard let certificate = options.certificateFile, let key = options.keyFile else {
            throw BenchmarkFailure("the TLS servers need --cert and --key")
        }
        return TLSServerConfiguration(certificateChain: [.file(path: certificate)], privateKey: .file(path: key))
    }

    private static func serveBare(tls: TLSServerConfiguration?) async throws {
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

    private static func announce(port: Int) {
        FileHandle.standardOutput.write(Data("PORT \(port)\n".utf8))
    }

    /// Returns once standard input reaches its end, which happens when the driver exits or
    /// closes the pipe.
    private static func standardInputClosed() async {
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
