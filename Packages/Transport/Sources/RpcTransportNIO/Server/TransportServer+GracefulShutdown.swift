import RpcTransport

extension TransportServer {
    /// Shuts the server down gracefully, letting the calls in flight finish first: the one
    /// graceful shutdown that every protocol server runs on a `ServiceGroup`'s graceful shutdown
    /// (or a signal).
    ///
    /// 1. The listening socket closes: no new connection is accepted.
    /// 2. `drain` runs, for at most the drain timeout: it returns once the protocol's calls in
    ///    flight have been answered (``InFlightWork/waitUntilIdle()``, say).
    /// 3. ``shutdown()`` follows, or starts as soon as the timeout passes (or the caller is
    ///    cancelled): the WebSocket connections still open are closed with 1001 (going away),
    ///    batches in flight finish and whatever is still open after
    ///    ``TransportServerConfiguration/shutdownGracePeriod`` is cut. A `drain` that waits for
    ///    its connections ends when they close, so it need not watch for cancellation.
    ///
    /// ```swift
    /// await server.shutdownGracefully { await inFlight.waitUntilIdle() }
    /// ```
    ///
    /// - Parameters:
    ///   - drainTimeout: The longest `drain` may take; `nil` (the default) for
    ///     ``TransportServerConfiguration/drainTimeout``.
    ///   - drain: Returns once the calls in flight have finished.
    public func shutdownGracefully(
        drainTimeout: Duration? = nil,
        drain: @escaping @Sendable () async -> Void
    ) async {
        await stopAccepting()
        let limit = max(drainTimeout ?? configuration.drainTimeout, .zero)
        _ = try? await Deadline.race(limit, onTimeout: { await self.shutdown() }) { await drain() }
        await shutdown()
    }
}
