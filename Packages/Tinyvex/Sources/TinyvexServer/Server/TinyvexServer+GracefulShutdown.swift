import RpcTransportNIO

extension TinyvexServer {
    /// Shuts the server down gracefully: it stops accepting connections, lets the requests being
    /// answered finish for at most ``TinyvexServerConfiguration/drainTimeout``, then closes the
    /// connections still open with 1001 (going away), which clients take as a reason to
    /// reconnect (to another node, say). Does nothing for an embedded server.
    ///
    /// ```swift
    /// try await TinyvexServer.withServer(schema: schema) { server in
    ///     await shutdownRequested()
    ///     await server.shutdownGracefully()
    /// }
    /// ```
    ///
    /// ``TinyvexServerService`` calls it when its `ServiceGroup` shuts down gracefully.
    public func shutdownGracefully() async {
        guard let transportServer else { return }
        let work = engine.requestsInFlight
        await transportServer.shutdownGracefully(drainTimeout: engine.configuration.drainTimeout) {
            await work.waitUntilIdle()
        }
    }
}
