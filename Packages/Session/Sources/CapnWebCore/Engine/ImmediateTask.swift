/// Starts tasks that run synchronously on the calling thread until their first suspension, so
/// that work started in a given order begins in that order.
enum ImmediateTask {
    /// Starts `operation` at once, preferring `executor` (the executor of the event loop the
    /// calling thread runs, if any): the nonisolated async code it calls runs on that loop too,
    /// so a target that does not suspend completes before the loop handles its next event, and
    /// one that does resumes there.
    ///
    /// Generic over the result and typed as throwing, like the `Task.immediate` it calls: a
    /// closure written at the call site is then passed on as it is. A `Void` or non-throwing
    /// signature would make each call wrap the closure in a thunk, one more allocation.
    @discardableResult
    static func start<Success: Sendable>(
        preferring executor: (any TaskExecutor)?,
        _ operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
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
