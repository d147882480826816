import Synchronization

/// Stops a stream copy from any thread: once the peer rejected a write, the task that reads
/// the local stream is cancelled.
final class PumpControl: Sendable {
    private let state = Mutex<(cancel: (@Sendable () -> Void)?, stopped: Bool)>((nil, false))

    /// Whether the copy was told to stop.
    var isStopped: Bool {
        state.withLock { $0.stopped }
    }

    /// How to cancel the copying task on ``stop()``; called at once if the copy was already stopped.
    func attach(_ cancel: @escaping @Sendable () -> Void) {
        let stopped = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.stopped
        }
        if stopped { cancel() }
    }

    /// Stops the copy.
    func stop() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.stopped = true
            return state.cancel
        }
        cancel?()
    }
}
