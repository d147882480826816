#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Android)
import Android
#endif

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
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<Binding>.fromOpaque(raw).takeUnretainedValue().executor
    }

    /// Binds the calling thread to `executor` for the thread's lifetime (or until bound again).
    ///
    /// Call it on the delivering thread itself, before the first event is delivered there.
    public static func bindCurrentThread(to executor: any TaskExecutor) {
        let previous = pthread_getspecific(key)
        if let previous, Unmanaged<Binding>.fromOpaque(previous).takeUnretainedValue().executor === executor {
            return
        }
        let binding = Unmanaged.passRetained(Binding(executor)).toOpaque()
        pthread_setspecific(key, binding)
        if let previous { Unmanaged<Binding>.fromOpaque(previous).release() }
    }

    /// Whether the calling thread is bound to an executor.
    public static var isBound: Bool {
        pthread_getspecific(key) != nil
    }

    /// One thread's executor, kept alive by the thread's slot.
    private final class Binding {
        let executor: any TaskExecutor

        init(_ executor: any TaskExecutor) {
            self.executor = executor
        }
    }

    /// The thread-specific slot, made once per process.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, releaseBinding)
        return key
    }()
}

#if canImport(Darwin)
/// Frees a thread's binding when the thread ends.
private func releaseBinding(_ pointer: UnsafeMutableRawPointer) {
    Unmanaged<AnyObject>.fromOpaque(pointer).release()
}
#else
/// Frees a thread's binding when the thread ends.
private func releaseBinding(_ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    Unmanaged<AnyObject>.fromOpaque(pointer).release()
}
#endif
