internal import CapnWeb
import Synchronization

/// One continuation resumed once, by the answer or by the caller giving up, whichever is first.
final class OutcomeWaiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<RpcOutcome, Never>?
        var outcome: RpcOutcome?
        var done = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<RpcOutcome, Never>) {
        let early = state.withLock { state -> RpcOutcome? in
            if let outcome = state.outcome {
                state.done = true
                return outcome
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ outcome: RpcOutcome) {
        let continuation = state.withLock { state -> CheckedContinuation<RpcOutcome, Never>? in
            guard !state.done else { return nil }
            guard let continuation = state.continuation else {
                if state.outcome == nil { state.outcome = outcome }
                return nil
            }
            state.done = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: outcome)
    }
}
