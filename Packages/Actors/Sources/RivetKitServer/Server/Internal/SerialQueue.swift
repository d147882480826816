import RivetKit
import Synchronization

/// Runs bodies one at a time in the order their tickets were taken, even when they suspend:
/// what makes an actor's actions run one after another, in the order they arrived. Every
/// ticket taken must be run, or the ones after it wait for ever.
final class SerialQueue: Sendable {
    private struct State {
        var nextTicket: UInt64 = 0
        var serving: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// A place in the queue, taken synchronously where the order is known.
    func ticket() -> UInt64 {
        state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
    }

    /// Runs `body` once every ticket before `ticket` has been run.
    nonisolated(nonsending) func run<T: Sendable>(
        ticket: UInt64, _ body: nonisolated(nonsending) () async throws(ActorError) -> T
    ) async throws(ActorError) -> T {
        // Only this ticket's run moves `serving` past it: once it is this ticket's turn, it
        // stays so, and the body starts without waiting.
        if state.withLock({ $0.serving != ticket }) {
            await wait(for: ticket)
        }
        defer { endTurn() }
        return try await body()
    }

    /// Takes the next ticket and its turn at once when no ticket is waiting or running;
    /// returns whether it did. A turn taken must be ended with ``endTurn()``.
    func takeTurnIfIdle() -> Bool {
        state.withLock { state in
            guard state.serving == state.nextTicket else { return false }
            state.nextTicket += 1
            return true
        }
    }

    /// Ends the current turn: the next ticket's body may start.
    func endTurn() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.serving += 1
            return state.waiters.removeValue(forKey: state.serving)
        }
        next?.resume()
    }

    /// Returns once it is `ticket`'s turn.
    private func wait(for ticket: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.serving != ticket else { return true }
                state.waiters[ticket] = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
