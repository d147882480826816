import Synchronization

/// The tasks a client owns (answers still being awaited after their caller stopped waiting):
/// ``drain()`` waits for all of them, so none outlives the client's ``RpcClient/disconnect()``.
final class TaskRegistry: Sendable {
    private struct State {
        var next: UInt64 = 0
        var tasks: [UInt64: Task<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Runs `body` in a task the registry tracks until it ends.
    func spawn(_ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.next
            state.next += 1
            state.tasks[id] = Task { [self] in
                await body()
                _ = self.state.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// How many tasks are running.
    var count: Int { state.withLock { $0.tasks.count } }

    /// Waits until every tracked task has ended.
    func drain() async {
        while true {
            let tasks = state.withLock { Array($0.tasks.values) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }
}
