import Synchronization

/// The background tasks one object owns: each removes itself when it ends, any can be
/// cancelled by its key, and the owner cancels and awaits the rest before it goes away, so no
/// task outlives its owner.
///
/// The one task set of the stack: connections run their opening, handshake, liveness and
/// timers in one, clients their background requests.
///
/// ```swift
/// let tasks = OwnedTasks<String>()
/// tasks.spawn("refresh") { await refresh() }
/// tasks.cancel("refresh")
/// await tasks.close()   // cancels and awaits whatever is left; nothing new starts
/// ```
public final class OwnedTasks<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        var id: UInt64
        var key: Key?
        var task: Task<Void, Never>
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var keyed: [Key: UInt64] = [:]
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Creates an empty set.
    public init() {}

    /// Runs `body` in a task the set owns until it ends. A task already running under `key`
    /// is cancelled and replaced.
    ///
    /// - Returns: `false` (and nothing runs) once the set is closed.
    @discardableResult
    public func spawn(_ key: Key? = nil, _ body: @escaping @Sendable () async -> Void) -> Bool {
        let replaced = state.withLock { state -> (started: Bool, replaced: Task<Void, Never>?) in
            guard !state.closed else { return (false, nil) }
            state.nextID += 1
            let id = state.nextID
            var replaced: Task<Void, Never>?
            if let key, let previous = state.keyed[key] {
                replaced = state.entries.removeValue(forKey: previous)?.task
            }
            let task = Task { [weak self] in
                await body()
                self?.ended(id)
            }
            state.entries[id] = Entry(id: id, key: key, task: task)
            if let key { state.keyed[key] = id }
            return (true, replaced)
        }
        replaced.replaced?.cancel()
        return replaced.started
    }

    /// Cancels the task running under `key`, if any; it ends at its next suspension point.
    public func cancel(_ key: Key) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard let id = state.keyed.removeValue(forKey: key) else { return nil }
            return state.entries.removeValue(forKey: id)?.task
        }
        task?.cancel()
    }

    /// How many tasks are running.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Waits until no task is running (tasks started meanwhile included).
    public func drain() async {
        while true {
            let tasks = state.withLock { $0.entries.values.map(\.task) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }

    /// Cancels every running task and awaits them; new tasks may still start afterwards.
    public func cancelAll() async {
        let tasks = takeAll(closing: false)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Cancels every running task, awaits them, and refuses new ones from now on.
    public func close() async {
        let tasks = takeAll(closing: true)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Cancels every running task without waiting, and refuses new ones: for an owner that goes
    /// away without awaiting ``close()``.
    public func abandon() {
        for task in takeAll(closing: true) { task.cancel() }
    }

    private func takeAll(closing: Bool) -> [Task<Void, Never>] {
        state.withLock { state in
            if closing { state.closed = true }
            defer {
                state.entries = [:]
                state.keyed = [:]
            }
            return state.entries.values.map(\.task)
        }
    }

    private func ended(_ id: UInt64) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return }
            if let key = entry.key, state.keyed[key] == id { state.keyed[key] = nil }
        }
    }
}
