public import NIOCore
import NIOPosix
@_spi(RpcImplementation) import RpcTransport

/// A task executor that runs jobs on one NIO event loop.
///
/// Code that runs with this executor as its preference (`withTaskExecutorPreference`, or a
/// task created with `executorPreference:`) executes its nonisolated async functions on the
/// event loop's thread. When that loop is also the one a connection's I/O runs on, a call's
/// frames are written and its answer resumes the caller on the same thread, with no hand-off
/// to the cooperative pool and back:
///
/// ```swift
/// try await withTaskExecutorPreference(transport.executor) {
///     for _ in 0 ..< 1000 { let _: Int = try await session.api.square(2) }
/// }
/// ```
///
/// Work that blocks or computes for long stalls every connection on that loop; keep it off
/// (`withTaskExecutorPreference(globalConcurrentExecutor) { … }`).
@_spi(RpcImplementation)
public final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    // `@unchecked`: the only stored property is an `EventLoop`, which is `Sendable`.

    /// The loop the jobs run on.
    public let eventLoop: any EventLoop

    /// An executor for `eventLoop`.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// The executor of the event loop that the calling thread runs, if it runs one.
    public static var current: EventLoopTaskExecutor? {
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return nil }
        if let cached = perThread.currentValue, cached.eventLoop === loop {
            return cached
        }
        let executor = EventLoopTaskExecutor(loop)
        perThread.currentValue = executor
        DeliveryExecutor.bindCurrentThread(to: executor)
        return executor
    }

    /// Binds the calling thread, when it runs an event loop, to that loop's executor as its
    /// ``DeliveryExecutor``, so that protocol engines handling the events a channel
    /// delivers there start their tasks on it. Channel initialisers call it on the loop.
    public static func bindCurrentLoop() {
        guard !DeliveryExecutor.isBound else { return }
        _ = current
    }

    /// Each loop thread's executor, made once.
    private static let perThread = ThreadSpecificVariable<EventLoopTaskExecutor>()

    /// Runs `job` on the event loop, after what is already queued there.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
