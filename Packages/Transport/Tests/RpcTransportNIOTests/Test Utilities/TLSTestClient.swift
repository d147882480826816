import NIOCore
import NIOPosix
@testable import RpcTransportNIO

/// A TLS client connection for the tests, with promises for everything a test waits on.
struct TLSTestClient: Sendable {
    /// The connected channel.
    let channel: any Channel
    /// The handshake promise handed to the TLS handler.
    let handshake: EventLoopPromise<TLSHandshakeCompleted>
    /// Succeeded by the ``TLSHandshakeCompleted`` user event.
    let handshakeEvent: EventLoopPromise<TLSHandshakeCompleted>
    /// Succeeded once the expected number of bytes came back.
    let echo: EventLoopPromise<ByteBuffer>
    /// Failed with the first error the pipeline reports; succeeded on a clean close.
    let outcome: EventLoopPromise<Void>

    /// Connects to 127.0.0.1 through a handler from `provider`.
    static func connect(
        to port: Int,
        provider: any TLSClientProvider,
        serverHostname: String?,
        handshakeTimeout: TimeAmount? = .seconds(10),
        expectedEchoBytes: Int = 0,
        on loop: any EventLoop
    ) async throws -> TLSTestClient {
        let handshake = loop.makePromise(of: TLSHandshakeCompleted.self)
        let handshakeEvent = loop.makePromise(of: TLSHandshakeCompleted.self)
        let echo = loop.makePromise(of: ByteBuffer.self)
        let outcome = loop.makePromise(of: Void.self)
        do {
            let channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(
                            provider.makeClientHandler(
                                serverHostname: serverHostname,
                                handshakeTimeout: handshakeTimeout,
                                handshakePromise: handshake
                            )
                        )
                        try operations.addHandler(
                            TLSClientProbe(
                                handshakeEvent: handshakeEvent,
                                echo: echo,
                                outcome: outcome,
                                expectedBytes: expectedEchoBytes
                            )
                        )
                    }
                }
                .connect(host: "127.0.0.1", port: port)
                .get()
            return TLSTestClient(
                channel: channel,
                handshake: handshake,
                handshakeEvent: handshakeEvent,
                echo: echo,
                outcome: outcome
            )
        } catch {
            for promise in [handshake, handshakeEvent] {
                promise.fail(error)
            }
            echo.fail(error)
            outcome.fail(error)
            throw error
        }
    }

    /// Writes and flushes `bytes`.
    func send(_ bytes: [UInt8]) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }
}
