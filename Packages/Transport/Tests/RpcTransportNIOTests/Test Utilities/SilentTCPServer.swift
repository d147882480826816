import NIOCore
import NIOPosix

/// A TCP server that accepts connections and never says anything, for handshake timeouts.
final class SilentTCPServer: Sendable {
    private let channel: any Channel

    /// The port the server listens on.
    let port: Int

    private init(channel: any Channel) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    /// Starts a server on the loopback interface.
    static func start() async throws -> SilentTCPServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return SilentTCPServer(channel: channel)
    }

    /// Stops listening.
    func stop() async {
        try? await channel.close()
    }

    /// Starts a server, runs `body` with it and stops it afterwards.
    static func run<T>(_ body: (SilentTCPServer) async throws -> T) async throws -> T {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
}
