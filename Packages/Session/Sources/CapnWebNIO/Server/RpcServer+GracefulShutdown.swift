internal import CapnWebCore
internal import RpcTransportNIO

extension RpcServer {
    /// How long ``shutdownGracefully(drainTimeout:)`` lets calls in flight finish by default:
    /// 10 seconds.
    public static let defaultDrainTimeout: Duration = .seconds(10)

    /// Shuts the server down gracefully: it stops accepting connections, lets the calls in
    /// flight on every session finish for at most `drainTimeout`, then closes the sessions
    /// still open with 1001 (going away). A peer's call that had not finished by then fails on
    /// its side with ``RpcError/connectionLost(_:)``. HTTP batches in flight are
    /// answered before their connections close.
    ///
    /// ```swift
    /// try await withRpcServer(main: { Calculator() }) { server in
    ///     await shutdownRequested()
    ///     await server.shutdownGracefully()
    /// }
    /// ```
    ///
    /// ``RpcServerService`` calls it when its `ServiceGroup` shuts down gracefully.
    public func shutdownGracefully(drainTimeout: Duration = RpcServer.defaultDrainTimeout) async {
        guard let transportServer else { return }
        await transportServer.shutdownGracefully(drainTimeout: drainTimeout) { [self] in
            await withDiscardingTaskGroup { group in
                for session in sessions {
                    group.addTask { await session.drain() }
                }
            }
        }
    }
}
