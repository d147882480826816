import NIOCore
import NIOPosix
import RpcTransport

/// Opens client channels: TCP to a host, an IP address or a Unix domain socket, optionally
/// wrapped in TLS, with the caller's handlers after it.
enum ClientConnector {
    /// Connects to `target` on `eventLoop`.
    ///
    /// - Parameters:
    ///   - tls: The TLS provider, or `nil` for plaintext.
    ///   - serverHostname: The name TLS verifies and announces.
    ///   - initializer: Adds the protocol handlers; runs on the event loop before connecting.
    /// - Throws: ``TransportError`` with code `connectTimeout`, `connectFailed`, `invalidTarget`
    ///   or a TLS code.
    static func connect(
        to target: TransportTarget,
        eventLoop: any EventLoop,
        connectTimeout: Duration,
        tls: (any TLSClientProvider)?,
        serverHostname: String,
        initializer: @escaping @Sendable (any Channel) throws -> Void
    ) async throws(TransportError) -> any Channel {
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    EventLoopTaskExecutor.bindCurrentLoop()
                    if let tls {
                        let handler = try tls.makeClientHandler(serverHostname: serverHostname)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try initializer(channel)
                }
            }
        let future: EventLoopFuture<any Channel>
        switch target {
        case .dns(let host, let port):
            future = bootstrap.connect(host: host, port: port)
        case .ipv4(let address, let port), .ipv6(let address, let port):
            let socketAddress: SocketAddress
            do {
                socketAddress = try SocketAddress(ipAddress: address, port: port)
            } catch {
                throw TransportError(
                    code: .invalidTarget, message: "\(address) is not a valid IP address", cause: error)
            }
            future = bootstrap.connect(to: socketAddress)
        case .unixDomainSocket(let path):
            future = bootstrap.connect(unixDomainSocketPath: path)
        }
        do {
            return try await future.get()
        } catch {
            throw connectError(error, target: target)
        }
    }

    /// The ``TransportError`` for a failed connection attempt.
    static func connectError(_ error: any Error, target: TransportTarget) -> TransportError {
        if let error = error as? TransportError {
            return error
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return TransportError(
                code: .connectTimeout, message: "could not connect to \(target) in time", cause: error)
        }
        return TransportError(code: .connectFailed, message: "could not connect to \(target): \(error)", cause: error)
    }
}
