import NIOCore
import NIOPosix
import RpcTransport
@testable import RpcTransportNIO

/// A server on 127.0.0.1 for the TLS tests: a TLS echo server, or a peer that does not speak TLS.
struct TLSTestServer: Sendable {
    /// What a server that does not speak TLS does with each connection.
    enum PlaintextBehaviour: Sendable {
        /// Writes an HTTP response straight away.
        case writeGarbage
        /// Closes the connection straight away.
        case close
        /// Accepts the connection and never writes or closes.
        case stayQuiet
    }

    /// The listening channel.
    let channel: any Channel
    /// The port it listens on.
    let port: Int
    /// Completed by the TLS handshake of the first connection (failed when the server stops first).
    let firstHandshake: EventLoopPromise<TLSHandshakeCompleted>
    /// Succeeded when the first accepted connection closes (failed when the server stops first).
    let firstConnectionClosed: EventLoopPromise<Void>

    /// Starts a TLS echo server: every decrypted byte is written back.
    ///
    /// - Parameter allowHalfClosure: keep connections open when the client's stream ends
    ///   without a TLS close_notify, so that only close_notify closes them.
    static func echo(
        provider: any TLSServerProvider,
        allowHalfClosure: Bool = false,
        on loop: any EventLoop
    ) async throws -> TLSTestServer {
        let firstHandshake = loop.makePromise(of: TLSHandshakeCompleted.self)
        return try await start(
            on: loop,
            firstHandshake: firstHandshake,
            allowHalfClosure: allowHalfClosure
        ) { channel in
            try channel.pipeline.syncOperations.addHandler(
                provider.makeServerHandler(handshakeTimeout: .seconds(10), handshakePromise: firstHandshake)
            )
            try channel.pipeline.syncOperations.addHandler(TLSEchoHandler())
        }
    }

    /// Starts a server that does not speak TLS.
    static func plaintext(_ behaviour: PlaintextBehaviour, on loop: any EventLoop) async throws -> TLSTestServer {
        try await start(on: loop, firstHandshake: loop.makePromise(of: TLSHandshakeCompleted.self)) { channel in
            try channel.pipeline.syncOperations.addHandler(TLSPlaintextPeerHandler(behaviour: behaviour))
        }
    }

    private static func start(
        on loop: any EventLoop,
        firstHandshake: EventLoopPromise<TLSHandshakeCompleted>,
        allowHalfClosure: Bool = false,
        configure: @escaping @Sendable (any Channel) throws -> Void
    ) async throws -> TLSTestServer {
        let firstConnectionClosed = loop.makePromise(of: Void.self)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: loop)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.allowRemoteHalfClosure, value: allowHalfClosure)
                .childChannelInitializer { child in
                    child.closeFuture.cascade(to: firstConnectionClosed)
                    return child.eventLoop.makeCompletedFuture { try configure(child) }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
        } catch {
            firstHandshake.fail(error)
            firstConnectionClosed.fail(error)
            throw error
        }
        // However the test ends, the promises are completed.
        channel.closeFuture.whenComplete { _ in
            firstHandshake.fail(TLSTestWait.Stopped())
            firstConnectionClosed.fail(TLSTestWait.Stopped())
        }
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw TLSTestWait.Stopped()
        }
        return TLSTestServer(
            channel: channel,
            port: port,
            firstHandshake: firstHandshake,
            firstConnectionClosed: firstConnectionClosed
        )
    }
}
