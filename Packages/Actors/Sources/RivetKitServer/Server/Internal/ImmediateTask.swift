/// Starts a task that runs on the calling thread until it first suspends, so that work started
/// in some order begins in that order, and work that never suspends is done before the caller
/// goes on.
enum ImmediateTask {
    /// Starts `operation` at once, preferring `executor` (a connection's event loop): what it
    /// awaits resumes there too.
    /// Returns the task, which its starter may cancel (an action past its deadline).
    @discardableResult
    static func start(
        preferring executor: (any TaskExecutor)?,
        _ operation: sending @escaping @isolated(any) () async -> Void
    ) -> Task<Void, Never> {
        #if os(Linux) || os(Windows) || os(Android)
        return Task.immediate(executorPreference: executor, operation: operation)
        #else
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return Task.immediate(executorPreference: executor, operation: operation)
        } else {
            return Task(executorPreference: executor, operation: operation)
        }
        #endif
    }
}
