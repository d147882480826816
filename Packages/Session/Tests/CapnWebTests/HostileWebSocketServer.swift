import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A WebSocket server on 127.0.0.1 built from NIO's own handlers, so that it can misbehave as
/// no well-behaved endpoint would: it answers each text frame a client sends with the frames
/// its script gives (nothing, a wrong answer, garbage, an abort), and it never answers a close
/// frame nor closes a connection itself. A client is done with it only by cutting the
/// connection.
final class HostileWebSocketServer: Sendable {
    /// What the server saw of its clients.
    struct Observations: Sendable {
        /// The text frames received, in order.
        var frames: [String] = []
        /// How many close frames arrived (none is ever answered).
        var closeFrames = 0
        /// How many connections the clients ended.
        var ended = 0
    }

    private final class Script: ChannelInboundHandler, Sendable {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        let answer: @Sendable (String) -> [String]
        let shared: Shared

        init(answer: @escaping @Sendable (String) -> [String], shared: Shared) {
            self.answer = answer
            self.shared = shared
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text:
                let text = String(decoding: frame.unmaskedData.readableBytesView, as: UTF8.self)
                shared.observations.withLock { $0.frames.append(text) }
                for reply in answer(text) {
                    let buffer = context.channel.allocator.buffer(string: reply)
                    context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
                }
                context.flush()
            case .connectionClose:
                shared.observations.withLock { $0.closeFrames += 1 }
            default:
                break
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            shared.observations.withLock { $0.ended += 1 }
            context.fireChannelInactive()
        }
    }

    private final class Shared: Sendable {
        let observations = Mutex(Observations())
    }

    private let channel: any Channel
    private let shared: Shared

    /// The `ws://` URL of the server.
    let url: String

    private init(channel: any Channel, shared: Shared) {
        self.channel = channel
        self.shared = shared
        self.url = "ws://127.0.0.1:\(channel.localAddress?.port ?? 0)/ws"
    }

    /// What the server has seen so far.
    var observations: Observations {
        shared.observations.withLock { $0 }
    }

    /// Starts a server whose answer to each text frame is `answer(frame)`, runs `body` with it
    /// and stops listening afterwards.
    static func run<T>(
        answer: @escaping @Sendable (String) -> [String],
        _ body: (HostileWebSocketServer) async throws -> T
    ) async throws -> T {
        let shared = Shared()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    automaticErrorHandling: false,
                    shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                Script(answer: answer, shared: shared))
                        }
                    })
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = HostileWebSocketServer(channel: channel, shared: shared)
        do {
            let result = try await body(server)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }
}

/// A TCP server on 127.0.0.1 that accepts connections and never says anything, not even the
/// answer to a WebSocket upgrade.
enum SilentTCPServer {
    /// Starts the server, runs `body` with its port and stops listening afterwards.
    static func run<T>(_ body: (Int) async throws -> T) async throws -> T {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
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
