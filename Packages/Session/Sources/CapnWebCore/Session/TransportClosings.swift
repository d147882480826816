import Synchronization
internal import RpcTransport

/// The closes of the transports a session's engines end after an abort (their own or the
/// peer's). An abort happens on the path that reads or writes, which must not wait for a close
/// handshake, so each close runs in a task of this set; the session connection that owns the set
/// awaits them when it closes (``finish(until:)``), cutting those still closing once its limit
/// has passed.
final class TransportClosings: Sendable {
    private let tasks = OwnedTasks<UInt64>()
    private let closing = Mutex<(transports: [UInt64: any MessageTransport], next: UInt64)>(([:], 0))

    /// Closes `transport` with `code` and `reason` in a task of this set, without waiting.
    func close(_ transport: any MessageTransport, code: CloseCode, reason: String) {
        let id = closing.withLock { closing -> UInt64 in
            closing.next += 1
            closing.transports[closing.next] = transport
            return closing.next
        }
        // Never refused: the set is drained, never closed, so a late abort still closes its
        // transport.
        tasks.spawn(id) { [self] in
            await transport.close(code: code, reason: reason)
            _ = closing.withLock { $0.transports.removeValue(forKey: id) }
        }
    }

    /// Returns once every close started here has finished. With a `deadline`, the transports
    /// still closing when it passes are cut (``MessageTransport/abort(_:)``),
    /// which ends their closes at once.
    func finish(until deadline: ContinuousClock.Instant?) async {
        if let deadline {
            _ = try? await Deadline.race(
                until: deadline,
                onTimeout: { [self] in
                    let cut = TransportError(
                        code: .closed, message: "the peer did not finish the close handshake in time",
                        closeCode: .applicationError)
                    for transport in closing.withLock({ Array($0.transports.values) }) where !transport.state.isClosed {
                        await transport.abort(cut)
                    }
                }
            ) { [tasks] in
                await tasks.drain()
            }
        }
        await tasks.drain()
    }
}
