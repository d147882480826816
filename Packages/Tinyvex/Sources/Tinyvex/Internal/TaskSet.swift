import Synchronization

/// The client's background work (resubscribing, unsubscribing, setting the token): each task
/// removes itself when done, and ``cancelAll()`` ends whatever is left when the client closes.
final class TaskSet: Sendable {
    private struct State {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    func run(_ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard !state.closed else { return }
            state.nextID += 1
            let id = state.nextID
            state.tasks[id] = Task { [weak self] in
                await body()
                self?.finished(id)
            }
        }
    }

    private func finished(_ id: UInt64) {
        _ = state.withLock { $0.tasks.removeValue(forKey: id) }
    }

    func cancelAll() async {
        let tasks = state.withLock { state in
            state.closed = true
            defer { state.tasks = [:] }
            return Array(state.tasks.values)
        }
        for task in tasks {
            task.cancel()
            await task.value
        }
    }
}
