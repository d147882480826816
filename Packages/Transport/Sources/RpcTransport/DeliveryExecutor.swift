/// The task executor of the thread a transport delivers its events on.
///
/// A transport whose events arrive on threads that run a task executor (a WebSocket's event
/// loop) binds each such thread to its executor before delivering anything there. A protocol
/// engine that handles an event synchronously and starts a task for it then prefers
/// ``current``: the task starts on the delivering thread and resumes there, so its answer is
/// written without a hand-off between threads. On any other thread ``current`` is `nil`.
///
/// This is how the protocol engines take their executor from the transport without depending
/// on the transport's implementation.
@_spi(RpcImplementation)
public enum DeliveryExecutor {
    /// The executor the calling thread is bound to, if any.
    public static var current: (any TaskExecutor)? {
        binding.currentValue?.executor
    }

    /// Binds the calling thread to `executor` for the thread's lifetime (or until bound again).
    ///
    /// Call it on the delivering thread itself, before the first event is delivered there.
    public static func bindCurrentThread(to executor: any TaskExecutor) {
        if let bound = binding.currentValue, bound.executor === executor { return }
        binding.set(Binding(executor))
    }

    /// Whether the calling thread is bound to an executor.
    public static var isBound: Bool {
        binding.currentValue != nil
    }

    /// One thread's executor.
    private final class Binding {
        let executor: any TaskExecutor

        init(_ executor: any TaskExecutor) {
            self.executor = executor
        }
    }

    /// Each thread's binding.
    private static let binding = ThreadSpecificReference<Binding>()
}
