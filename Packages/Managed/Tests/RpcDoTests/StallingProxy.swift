import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 that can go silent: ``stallOpenConnections(for:)`` makes the
/// connections open at that moment hold every byte, in both directions, for a while (a server
/// that hangs, or a network path that stops delivering), and pass them on afterwards, while
/// new connections are forwarded as usual.
final class StallingProxy: Sendable {
    /// The port the proxy listens on.
    let port: Int
    private let serial = Atomic<Int>(0)
    private let stalledBelow = Atomic<Int>(0)
    /// When the stall ends, in `NIODeadline` nanoseconds.
    private let stallEnd = Atomic<UInt64>(0)
    private let releases = Atomic<Int>(0)

    /// How many times a connection passed on bytes it had held during a stall.
    var heldAndReleased: Int {
        releases.load(ordering: .acquiring)
    }

    private init(port: Int) {
        self.port = port
    }

    /// Makes the connections open now hold what they read until `duration` has passed.
    func stallOpenConnections(for duration: Duration) {
        let end = NIODeadline.now() + .nanoseconds(Int64(duration / .nanoseconds(1)))
        stallEnd.store(end.uptimeNanoseconds, ordering: .releasing)
        stalledBelow.store(serial.load(ordering: .acquiring), ordering: .releasing)
    }

    /// Until when the connection numbered `number` holds what it reads, if it is stalled now.
    fileprivate func stall(of number: Int) -> NIODeadline? {
        guard number < stalledBelow.load(ordering: .acquiring) else { return nil }
        let end = NIODeadline.uptimeNanoseconds(stallEnd.load(ordering: .acquiring))
        return end > .now() ? end : nil
    }

    fileprivate func countRelease() {
        _ = releases.wrappingAdd(1, ordering: .acquiringAndReleasing)
    }

    fileprivate func nextNumber() -> Int {
        serial.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
    }

    /// Runs a proxy to 127.0.0.1:`targetPort` while `body` runs.
    static func run<T>(to targetPort: Int, _ body: (StallingProxy) async throws -> T) async throws -> T {
        let group = MultiThreadedEventLoopGroup.singleton
        let holder = Mutex<StallingProxy?>(nil)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                guard let proxy = holder.withLock({ $0 }) else {
                    return inbound.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
                }
                let number = proxy.nextNumber()
                return ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(
                            Forwarder(to: outbound, proxy: proxy, number: number))
                        try outbound.pipeline.syncOperations.addHandler(
                            Forwarder(to: inbound, proxy: proxy, number: number))
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let proxy = StallingProxy(port: listener.localAddress?.port ?? 0)
        holder.withLock { $0 = proxy }
        do {
            let value = try await body(proxy)
            try? await listener.close()
            return value
        } catch {
            try? await listener.close()
            throw error
        }
    }
}

/// Passes the bytes one side reads to the other; while the proxy stalls this connection it
/// holds them and passes them on when the stall ends. Closes the other side when this one
/// closes.
private final class Forwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel
    private let proxy: StallingProxy
    private let number: Int
    private var held: [ByteBuffer] = []
    private var release: Scheduled<Void>?

    init(to partner: any Channel, proxy: StallingProxy, number: Int) {
        self.partner = partner
        self.proxy = proxy
        self.number = number
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if let end = proxy.stall(of: number) {
            held.append(bytes)
            if release == nil {
                release = context.eventLoop.assumeIsolated().scheduleTask(deadline: end) { self.passHeld() }
            }
            return
        }
        passHeld()
        partner.writeAndFlush(bytes, promise: nil)
    }

    private func passHeld() {
        release = nil
        guard !held.isEmpty else { return }
        for bytes in held { partner.write(bytes, promise: nil) }
        held = []
        partner.flush()
        proxy.countRelease()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release?.cancel()
        release = nil
        held = []
        partner.close(promise: nil)
        context.fireChannelInactive()
    }
}
