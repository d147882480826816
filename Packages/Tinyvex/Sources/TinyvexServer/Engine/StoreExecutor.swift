import Dispatch

/// The serial executor the engine runs on: a dispatch queue of its own, off Swift's
/// cooperative thread pool.
///
/// The engine's work is synchronous by design (GRDB's `read` and `write`, and the schema's
/// query and mutation bodies, which may take a while): that is what keeps mutations one at a
/// time and their re-evaluations queued before the call returns. On the cooperative pool, which
/// has one thread per core, each such call would block a pool thread for as long as it runs,
/// and with a few servers busy at once (or a slow mutation) no thread would be left for the
/// tasks that send the results, read the sockets or end a wait. Jobs of the engine run on this
/// queue instead; dispatch adds threads for it when one blocks.
final class StoreExecutor: SerialExecutor {
    private let queue: DispatchQueue

    /// A new executor with a serial queue named `label`.
    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async {
            job.runSynchronously(on: executor)
        }
    }

    /// Runs blocking `body` on the queue and returns what it returns: for work before the
    /// engine exists (opening the store).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
