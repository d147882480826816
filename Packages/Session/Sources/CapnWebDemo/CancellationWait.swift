import Synchronization

/// Suspends the calling task until it is cancelled, holding nothing but one continuation.
///
/// `Task.sleep` would do for a short wait, but a cancelled sleep leaves its timer scheduled
/// until the time it was set for, so a long one (`hang()` waiting an hour) keeps a few hundred
/// bytes per cancelled call alive for that hour.
final class CancellationWait: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Void, Never>?)
        case cancelled
    }

    private let state = Mutex(State.waiting(nil))

    /// Returns once the calling task is cancelled (at once when it already is).
    static func untilCancelled() async {
        let wait = CancellationWait()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = wait.state.withLock { state -> Bool in
                    if case .cancelled = state { return true }
                    state = .waiting(continuation)
                    return false
                }
                if cancelled { continuation.resume() }
            }
        } onCancel: {
            let continuation = wait.state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state = .cancelled }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
            continuation?.resume()
        }
    }
}
