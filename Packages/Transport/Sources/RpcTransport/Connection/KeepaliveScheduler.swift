/// The one keepalive loop: it probes an open transport every ``Keepalive/interval`` and ends
/// it when a probe goes unanswered for ``Keepalive/timeout``.
///
/// A ``ReconnectingConnection`` runs it on each of its transports; a WebSocket transport with
/// keepalive settings (client or server side) runs it for itself.
///
/// ```swift
/// await KeepaliveScheduler.run(Keepalive(interval: .seconds(20)), on: transport) { error in
///     await transport.abort(error)
/// }
/// ```
public enum KeepaliveScheduler {
    /// Probes `transport` until it closes, the task is cancelled, or a probe is not answered in
    /// time; in that last case `onUnanswered` runs with a ``TransportError`` of code
    /// ``TransportError/Code/keepaliveTimeout`` (it should end the transport) and the loop
    /// returns that error. Returns `nil` when the transport closed, the task was cancelled, or
    /// there is nothing to probe with.
    ///
    /// A probe that throws counts as unanswered. A probe must stop when its task is
    /// cancelled.
    @discardableResult
    public static func run(
        _ keepalive: Keepalive,
        on transport: any MessageTransport,
        onUnanswered: @escaping @Sendable (TransportError) async -> Void
    ) async -> TransportError? {
        guard let probe = keepalive.probe(for: transport) else { return nil }
        return await withTaskGroup(of: TransportError?.self) { group in
            group.addTask {
                for await state in transport.stateUpdates() where state.isClosed {
                    break
                }
                return nil
            }
            group.addTask {
                await loop(keepalive, probe: probe, onUnanswered: onUnanswered)
            }
            var unanswered = await group.next() ?? nil
            group.cancelAll()
            for await result in group where result != nil {
                unanswered = result
            }
            return unanswered
        }
    }

    private static func loop(
        _ keepalive: Keepalive,
        probe: @escaping @Sendable () async throws -> Void,
        onUnanswered: @escaping @Sendable (TransportError) async -> Void
    ) async -> TransportError? {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: keepalive.interval)
            } catch {
                return nil
            }
            let answered = await Deadline.completes(within: keepalive.timeout, probe)
            if Task.isCancelled { return nil }
            if !answered {
                let error = TransportError(
                    code: .keepaliveTimeout,
                    message: "no answer to the keepalive probe within \(keepalive.timeout)",
                    closeCode: .goingAway)
                await onUnanswered(error)
                return error
            }
        }
        return nil
    }
}
