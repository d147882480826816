import Logging
public import NIOCore
import RpcTransport
import NIOHTTP1
import NIOPosix
import Synchronization

/// A server for WebSocket connections and HTTP batches on one port (or Unix domain socket).
///
/// On each connection, `GET` with `Upgrade: websocket` becomes a WebSocket connection that is
/// handed to the connection handler as a ``WebSocketTransport``; `POST` is a batch whose
/// messages go to the batch handler and whose answer messages form the response. Other `GET`
/// requests and other methods are answered with 405. A server started with a request handler
/// instead hands it every request that is not an upgrade, whatever its method, with its body.
///
/// Run one with ``withTransportServer(configuration:eventLoopGroup:logger:onConnection:onBatch:isolation:_:)``,
/// which shuts it down gracefully when its body returns.
public final class TransportServer: Sendable {
    /// The address the server listens on; for a port 0 configuration it holds the chosen port.
    public let localAddress: SocketAddress?
    /// The configuration the server runs with.
    public let configuration: TransportServerConfiguration

    private let core: ServerCore
    private let serverChannel: any Channel
    private let work: AsyncStream<ServerWork>
    private let shutdownPhase = Mutex(ShutdownPhase.running)

    private enum ShutdownPhase {
        case running
        case inProgress([CheckedContinuation<Void, Never>])
        case done
    }

    private init(core: ServerCore, serverChannel: any Channel, work: AsyncStream<ServerWork>) {
        self.core = core
        self.configuration = core.configuration
        self.serverChannel = serverChannel
        self.localAddress = serverChannel.localAddress
        self.work = work
    }

    /// The TCP port the server listens on; `nil` for a Unix domain socket.
    public var port: Int? {
        localAddress?.port
    }

    /// The number of connections open right now, HTTP and WebSocket.
    public var openConnectionCount: Int {
        core.registry.openChannels.count
    }

    /// Starts listening.
    static func bind(
        configuration: TransportServerConfiguration,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger,
        acceptsWebSockets: Bool,
        acceptsBatches: Bool,
        acceptsRequests: Bool = false
    ) async throws(TransportError) -> TransportServer {
        let tls = try configuration.tls.map { configuration throws(TransportError) in
            try TLSProviders.server(configuration)
        }
        let (stream, continuation) = AsyncStream<ServerWork>.makeStream()
        let core = ServerCore(
            configuration: configuration,
            work: continuation,
            tls: tls,
            logger: logger,
            acceptsWebSockets: acceptsWebSockets,
            acceptsBatches: acceptsBatches,
            acceptsRequests: acceptsRequests
        )
        let exhaustion = AcceptExhaustion(backoff: configuration.acceptBackoff, logger: logger)
        var bootstrap = ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(ChannelOptions.backlog, value: Int32(clamping: max(configuration.backlog, 1)))
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPauseHandler(exhaustion))
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try ServerChildPipeline.configure(channel, core: core)
                }
            }
        let channel: any Channel
        do {
            switch configuration.address {
            case .host(let host, let port):
                bootstrap = bootstrap.serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                channel = try await bootstrap.bind(host: host, port: port).get()
            case .unixDomainSocket(let path):
                channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
            }
        } catch {
            continuation.finish()
            throw TransportError(
                code: .ioError, message: "could not listen on \(configuration.address): \(error)", cause: error)
        }
        logger.debug("transport server listening", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
        return TransportServer(core: core, serverChannel: channel, work: stream)
    }

    /// Runs application code for the work the event loops hand over, until the server has shut
    /// down and every handler has returned.
    func dispatch(
        onConnection: (@Sendable (WebSocketTransport, WebSocketUpgradeRequest) async -> Void)?,
        onBatch: (@Sendable (HTTPBatchRequest) async throws -> [TransportMessage])?,
        onRequest: (@Sendable (HTTPServerRequest) async throws -> HTTPServerResponse)? = nil
    ) async {
        let hook = configuration.upgradeHook
        await withDiscardingTaskGroup { group in
            for await item in work {
                switch item {
                case .upgrade(let request, let reply):
                    group.addTask {
                        let decision = await hook?(request) ?? .accept()
                        reply.complete(.success(decision))
                    }
                case .connection(let transport, let request):
                    group.addTask {
                        await onConnection?(transport, request)
                        await transport.close(code: .normal, reason: "")
                    }
                case .batch(let request, let reply):
                    group.addTask {
                        guard let onBatch else {
                            reply.complete(.failure(TransportError(code: .httpStatus, message: "no batch handler", httpStatus: 404)))
                            return
                        }
                        do {
                            reply.complete(.success(try await onBatch(request)))
                        } catch {
                            reply.complete(.failure(error))
                        }
                    }
                case .request(let request, let reply):
                    group.addTask {
                        guard let onRequest else {
                            reply.complete(.success(HTTPServerResponse(status: 404, text: "no request handler")))
                            return
                        }
                        do {
                            reply.complete(.success(try await onRequest(request)))
                        } catch {
                            reply.complete(.failure(error))
                        }
                    }
                }
            }
        }
    }

    /// Stops accepting connections: the listening socket closes, the connections open stay
    /// until ``shutdown()``. For a server that ends its sessions its own way before it shuts
    /// down, so that no client reconnects to it meanwhile.
    public func stopAccepting() async {
        try? await serverChannel.close()
    }

    /// Shuts the server down gracefully and returns once it is down.
    ///
    /// It stops accepting connections, closes open WebSocket connections with 1001 (going away),
    /// lets batch requests in flight finish and closes idle HTTP connections; whatever is still
    /// open after ``TransportServerConfiguration/shutdownGracePeriod`` is cut. Calling it again
    /// waits for the first call to finish.
    public func shutdown() async {
        let first = shutdownPhase.withLock { phase -> Bool in
            guard case .running = phase else { return false }
            phase = .inProgress([])
            return true
        }
        guard first else {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = shutdownPhase.withLock { phase -> Bool in
                    switch phase {
                    case .inProgress(var waiters):
                        waiters.append(continuation)
                        phase = .inProgress(waiters)
                        return false
                    case .running, .done:
                        return true
                    }
                }
                if resumeNow {
                    continuation.resume()
                }
            }
            return
        }
        await performShutdown()
        let waiters = shutdownPhase.withLock { phase -> [CheckedContinuation<Void, Never>] in
            defer { phase = .done }
            if case .inProgress(let waiters) = phase {
                return waiters
            }
            return []
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    private func performShutdown() async {
        let deadline = ContinuousClock.now + configuration.shutdownGracePeriod
        let (transports, channels) = core.registry.beginShutdown()
        core.logger.debug(
            "transport server shutting down",
            metadata: ["websockets": "\(transports.count)", "connections": "\(channels.count)"]
        )
        try? await serverChannel.close()
        for channel in channels {
            // Idle HTTP connections close now, busy ones after their response.
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        for transport in transports {
            transport.closeOnLoop(code: .goingAway, reason: "server shutting down")
        }
        let registry = core.registry
        // Whichever ends first: every connection is idle, or the grace period is over.
        _ = try? await Deadline.race(until: deadline) { await registry.waitUntilIdle() }
        let remaining = registry.openChannels
        for channel in remaining {
            channel.close(promise: nil)
        }
        for channel in remaining {
            try? await channel.closeFuture.get()
        }
        core.work.finish()
    }
}
