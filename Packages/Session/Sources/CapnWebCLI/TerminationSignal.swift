import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for `SIGINT` or `SIGTERM`, so that `capnweb serve` can shut down gracefully instead
/// of being killed.
enum TerminationSignal {
    /// Returns when the process receives `SIGINT` or `SIGTERM`, or when the task is cancelled;
    /// returns the signal's number, or `nil` on cancellation.
    ///
    /// While it waits, the two signals no longer end the process by default.
    static func wait() async -> Int32? {
        let latch = Latch()
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { latch.finish(number) }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { latch.install($0) }
        } onCancel: {
            latch.finish(nil)
        }
    }

    /// One wait: resumed once, by the first signal or by cancellation, even when that comes
    /// before the waiter is installed.
    private final class Latch: Sendable {
        private enum State {
            case waiting(CheckedContinuation<Int32?, Never>?)
            case done(Int32?)
        }

        private let state = Mutex(State.waiting(nil))

        /// Installs the waiter, or resumes it at once when the wait is over.
        func install(_ continuation: CheckedContinuation<Int32?, Never>) {
            let early = state.withLock { state -> Int32?? in
                if case .done(let signal) = state { return .some(signal) }
                state = .waiting(continuation)
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        /// Ends the wait with `signal` (`nil` for cancellation), unless it is over.
        func finish(_ signal: Int32?) {
            let continuation = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .done(signal)
                return continuation
            }
            continuation?.resume(returning: signal)
        }
    }
}
