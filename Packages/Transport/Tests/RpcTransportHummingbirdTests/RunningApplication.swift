import Hummingbird
import Logging
import NIOCore
import RpcTransportHummingbird

/// Runs a Hummingbird application on 127.0.0.1 at a free port while `body` runs, then stops it;
/// its WebSocket upgrades go through `router` to our transports.
func withRunningApplication<Context: RequestContext, Value: Sendable>(
    router: Router<Context>,
    _ body: @escaping @Sendable (_ port: Int) async throws -> Value
) async throws -> Value where Context: InitializableFromSource<ApplicationRequestContextSource> {
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let application = Application(
        router: router,
        server: .http1WebSocketTransports(webSocketRouter: router),
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        },
        logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    return try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask {
            try await application.runService(gracefulShutdownSignals: [])
            return nil
        }
        var port = 0
        for await bound in ports { port = bound }
        group.addTask { try await body(port) }
        defer { group.cancelAll() }
        while let finished = try await group.next() {
            if let value = finished { return value }
        }
        throw CancellationError()
    }
}
