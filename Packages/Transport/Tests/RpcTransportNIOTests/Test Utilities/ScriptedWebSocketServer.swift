import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A WebSocket server built directly from NIO's handlers that plays a fixed script to each
/// client: it sends the given frames right after the handshake, answers pings only if told to,
/// and records every frame it receives.
final class ScriptedWebSocketServer: Sendable {
    private final class Script: ChannelInboundHandler, Sendable {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        let frames: [TestFrame]
        let answerPings: Bool
        let maskFrames: Bool
        let received = Mutex<[TestFrame]>([])

        init(frames: [TestFrame], answerPings: Bool, maskFrames: Bool) {
            self.frames = frames
            self.answerPings = answerPings
            self.maskFrames = maskFrames
        }

        func handlerAdded(context: ChannelHandlerContext) {
            for frame in frames {
                context.write(wrapOutboundOut(makeFrame(frame, allocator: context.channel.allocator)), promise: nil)
            }
            context.flush()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            let payload = Array(frame.unmaskedData.readableBytesView)
            let opcode = UInt8(webSocketOpcode: frame.opcode)
            received.withLock {
                $0.append(TestFrame(fin: frame.fin, reserved: frame.reservedBits.rawValue, opcode: opcode, payload: payload))
            }
            switch frame.opcode {
            case .ping where answerPings:
                let pong = TestFrame(fin: true, reserved: 0, opcode: 0xA, payload: payload)
                context.writeAndFlush(wrapOutboundOut(makeFrame(pong, allocator: context.channel.allocator)), promise: nil)
            case .connectionClose:
                let reply = TestFrame(fin: true, reserved: 0, opcode: 0x8, payload: Array(payload.prefix(2)))
                context.writeAndFlush(wrapOutboundOut(makeFrame(reply, allocator: context.channel.allocator)))
                    .assumeIsolated().whenComplete { _ in context.channel.close(promise: nil) }
            default:
                break
            }
        }

        private func makeFrame(_ frame: TestFrame, allocator: ByteBufferAllocator) -> WebSocketFrame {
            WebSocketFrame(
                fin: frame.fin,
                rsv1: frame.reserved & 0x40 != 0,
                rsv2: frame.reserved & 0x20 != 0,
                rsv3: frame.reserved & 0x10 != 0,
                opcode: WebSocketOpcode(encodedWebSocketOpcode: frame.opcode) ?? .binary,
                maskKey: maskFrames ? [1, 2, 3, 4] : nil,
                data: allocator.buffer(bytes: frame.payload)
            )
        }
    }

    private final class Scripts: Sendable {
        let list = Mutex<[Script]>([])
    }

    private let channel: any Channel
    private let scripts: Scripts

    /// The port the server listens on.
    let port: Int

    private init(channel: any Channel, scripts: Scripts) {
        self.channel = channel
        self.scripts = scripts
        self.port = channel.localAddress?.port ?? 0
    }

    /// Every frame received from clients, in order.
    var received: [TestFrame] {
        scripts.list.withLock { $0.flatMap { $0.received.withLock { $0 } } }
    }

    /// Starts a server on the loopback interface.
    ///
    /// - Parameters:
    ///   - responseHeaders: Extra headers for the 101 answer.
    ///   - answerPings: Whether pings are answered with pongs.
    ///   - script: Frames sent to each client after the handshake.
    ///   - maskFrames: Whether the server masks what it sends, which clients must reject.
    static func start(
        responseHeaders: [(String, String)] = [],
        answerPings: Bool = true,
        script: [TestFrame] = [],
        maskFrames: Bool = false
    ) async throws -> ScriptedWebSocketServer {
        let scripts = Scripts()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    automaticErrorHandling: false,
                    shouldUpgrade: { channel, _ in
                        var headers = HTTPHeaders()
                        for (name, value) in responseHeaders {
                            headers.add(name: name, value: value)
                        }
                        return channel.eventLoop.makeSucceededFuture(headers)
                    },
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            let handler = Script(frames: script, answerPings: answerPings, maskFrames: maskFrames)
                            scripts.list.withLock { $0.append(handler) }
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                    }
                )
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ScriptedWebSocketServer(channel: channel, scripts: scripts)
    }

    /// Starts a server, runs `body` with it and stops it afterwards.
    static func run<T>(
        responseHeaders: [(String, String)] = [],
        answerPings: Bool = true,
        script: [TestFrame] = [],
        maskFrames: Bool = false,
        _ body: (ScriptedWebSocketServer) async throws -> T
    ) async throws -> T {
        let server = try await start(
            responseHeaders: responseHeaders, answerPings: answerPings, script: script, maskFrames: maskFrames)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops listening.
    func stop() async {
        try? await channel.close()
    }
}
