import NIOCore
import RpcTransport

/// Bounded waits for the TLS tests: no wait outlives its timeout.
enum TLSTestWait {
    /// A wait ran out of time.
    struct TimedOut: Error, CustomStringConvertible {
        var description: String
    }

    /// The channel or server stopped before the awaited outcome.
    struct Stopped: Error {}

    /// The value of `promise`, or ``TimedOut`` once `timeout` passes.
    static func value<T: Sendable>(
        of promise: EventLoopPromise<T>,
        within timeout: TimeAmount = .seconds(10)
    ) async throws -> T {
        let timer = promise.futureResult.eventLoop.scheduleTask(in: timeout) {
            promise.fail(TimedOut(description: "no outcome within \(timeout.nanoseconds / 1_000_000) ms"))
        }
        defer { timer.cancel() }
        return try await promise.futureResult.get()
    }

    /// The error `promise` failed with, or `nil` if it succeeded; ``TimedOut`` once `timeout` passes.
    static func error<T: Sendable>(
        of promise: EventLoopPromise<T>,
        within timeout: TimeAmount = .seconds(10)
    ) async -> (any Error)? {
        do {
            _ = try await value(of: promise, within: timeout)
            return nil
        } catch {
            return error
        }
    }

    /// The ``TransportError`` code `promise` failed with; `nil` if it succeeded or failed otherwise.
    static func transportErrorCode<T: Sendable>(
        of promise: EventLoopPromise<T>,
        within timeout: TimeAmount = .seconds(10)
    ) async -> TransportError.Code? {
        (await error(of: promise, within: timeout) as? TransportError)?.code
    }
}
