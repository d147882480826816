import Synchronization

/// One continuation resumed at most once, by a settlement or by cancellation, whichever comes
/// first. A settlement arriving before the continuation is installed is kept for it.
///
/// The state machine below is what guarantees the single resume, so the continuation is an
/// unchecked one: a checked continuation would allocate a second object per awaited call.
final class SettlementWaiter: Sendable {
    private enum State {
        case empty
        case waiting(UnsafeContinuation<Settlement, Never>)
        case early(Settlement)
        case done
    }

    private let state = Mutex<State>(.empty)

    /// Installs the continuation; resumes it at once if a settlement came first.
    func install(_ continuation: UnsafeContinuation<Settlement, Never>) {
        let early: Settlement? = state.withLock { state in
            switch state {
            case .empty:
                state = .waiting(continuation)
                return nil
            case .early(let settlement):
                state = .done
                return settlement
            case .waiting, .done:
                return nil
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Resumes with `settlement` unless already resumed.
    func resume(_ settlement: Settlement) {
        let continuation: UnsafeContinuation<Settlement, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .early(settlement)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .early, .done:
                return nil
            }
        }
        continuation?.resume(returning: settlement)
    }
}
