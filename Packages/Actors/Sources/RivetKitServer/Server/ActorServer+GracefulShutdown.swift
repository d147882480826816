import RpcTransportNIO

extension ActorServer {
    /// Shuts the server down gracefully: it stops accepting connections, lets the actions in
    /// flight on the realtime connections finish for at most
    /// ``ActorServerConfiguration/drainTimeout``, then closes the connections still open with
    /// 1001 (going away); HTTP actions in flight are answered before their connections close.
    ///
    /// ```swift
    /// try await withActorServer(registry: registry, store: store) { server in
    ///     await shutdownRequested()
    ///     await server.shutdownGracefully()
    /// }
    /// ```
    ///
    /// ``ActorServerService`` calls it when its `ServiceGroup` shuts down gracefully.
    public func shutdownGracefully() async {
        let work = core.actionsInFlight
        await transport.shutdownGracefully(drainTimeout: configuration.drainTimeout) { await work.waitUntilIdle() }
    }
}
