import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
@_spi(ChannelHandlers) public import RpcTransportNIO

/// Drives an echo server through a client built only from SwiftNIO's pieces: the HTTP client
/// upgrade handler with `NIOWebSocketClientUpgrader` (which adds the frame encoder and decoder)
/// and ``BareClientHandler``.
public final class BareClientDriver: EchoDriver {
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects, upgrades and returns once the handler is in place.
    public static func connect(port: Int, message: [UInt8], tls: TLSClientConfiguration? = nil) async throws -> BareClientDriver {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let upgraded = eventLoop.makePromise(of: Void.self)
        let upgrader = NIOWebSocketClientUpgrader(
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BareClientHandler(message: message))
                    upgraded.succeed()
                }
            }
        )
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            try channel.pipeline.syncOperations.addHandler(
                                TLSChannelHandlers.clientHandler(tls, serverHostname: "127.0.0.1"))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers(
                            withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                        )
                        try channel.pipeline.syncOperations.addHandler(UpgradeRequestSender(port: port))
                    }
                }
                .connect(host: "127.0.0.1", port: port)
                .get()
        } catch {
            upgraded.fail(error)
            throw error
        }
        channel.closeFuture.whenComplete { _ in
            upgraded.fail(BenchmarkFailure("the connection closed before the upgrade"))
        }
        try await upgraded.futureResult.get()
        return BareClientDriver(channel: channel)
    }

    public func sequential(count: Int) async throws -> [Int64] {
        let channel = self.channel
        let promise = channel.eventLoop.makePromise(of: [Int64].self)
        channel.eventLoop.execute {
            do {
                try channel.pipeline.syncOperations.handler(type: BareClientHandler.self)
                    .startSequential(count: count, promise: promise)
            } catch {
                promise.fail(error)
            }
        }
        return try await promise.futureResult.get()
    }

    public func pipelined(total: Int, window: Int) async throws -> Duration {
        let channel = self.channel
        let promise = channel.eventLoop.makePromise(of: Duration.self)
        channel.eventLoop.execute {
            do {
                try channel.pipeline.syncOperations.handler(type: BareClientHandler.self)
                    .startPipelined(total: total, window: window, promise: promise)
            } catch {
                promise.fail(error)
            }
        }
        return try await promise.futureResult.get()
    }

    public func close() async {
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer())
        try? await channel.writeAndFlush(close)
        try? await channel.close()
    }
}

/// Sends the upgrade request once the connection is up; the upgrade handler adds the WebSocket
/// headers to it.
final class UpgradeRequestSender: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let port: Int

    init(port: Int) {
        self.port = port
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        head.headers.add(name: "Content-Length", value: "0")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }
}

/// The bare client's measuring handler: writes masked text frames, counts echoes, sends the
/// next message from `channelRead` and flushes once per read burst.
final class BareClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let payload: ByteBuffer
    private var progress = EchoProgress()
    private var sequentialPromise: EventLoopPromise<[Int64]>?
    private var pipelinedPromise: EventLoopPromise<Duration>?
    private var context: ChannelHandlerContext?
    private var needsFlush = false

    init(message: [UInt8]) {
        payload = ByteBuffer(bytes: message)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func startSequential(count: Int, promise: EventLoopPromise<[Int64]>) {
        sequentialPromise = promise
        progress.beginSequential(count: count)
        sendMessage()
        flushIfNeeded()
    }

    func startPipelined(total: Int, window: Int, promise: EventLoopPromise<Duration>) {
        pipelinedPromise = promise
        progress.beginPipelined(total: total, window: window)
        for _ in 0 ..< window {
            sendMessage()
        }
        flushIfNeeded()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = ContinuousClock.now
        let frame = unwrapInboundIn(data)
        guard frame.opcode == .text || frame.opcode == .binary else { return }
        switch progress.echoArrived(at: now) {
        case .send:
            sendMessage()
        case .finished:
            if let promise = sequentialPromise {
                sequentialPromise = nil
                promise.succeed(progress.samples)
            }
            if let promise = pipelinedPromise {
                pipelinedPromise = nil
                promise.succeed(progress.finishedAt - progress.startedAt)
            }
        case .wait:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let failure = BenchmarkFailure("the connection closed during the measurement")
        sequentialPromise?.fail(failure)
        pipelinedPromise?.fail(failure)
        sequentialPromise = nil
        pipelinedPromise = nil
        context.fireChannelInactive()
    }

    private func sendMessage() {
        guard let context else { return }
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: payload)
        context.write(wrapOutboundOut(frame), promise: nil)
        needsFlush = true
    }

    private func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        context.flush()
    }
}
