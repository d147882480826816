import Synchronization

/// Stops a stream copy from any thread: once the peer rejected a write, the task that reads
/// the local stream is cancelled.
final class PumpControl: Sendable {
    private let state = Mutex<(task: Task<Void, Never>?, stopped: Bool)>((nil, false))

    /// Whether the copy was told to stop.
    var isStopped: Bool {
        state.withLock { $0.stopped }
    }

    /// The task to cancel on ``stop()``; cancelled at once if the copy was already stopped.
    func attach(_ task: Task<Void, Never>) {
        let stopped = state.withLock { state -> Bool in
            state.task = task
            return state.stopped
        }
        if stopped { task.cancel() }
    }

    /// Stops the copy.
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            return state.task
        }
        task?.cancel()
    }
}
