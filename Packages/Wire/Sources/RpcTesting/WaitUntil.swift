// Waiting in tests for something to become observable, by polling.
//
// A test that starts work in the background and then needs its effect (a message received, a
// counter moved, a state reached) asks one of these functions to poll a condition instead of
// sleeping for a guessed time. Each wait is bounded by a generous timeout, which only decides
// how long a *failing* test takes: a passing one returns as soon as the condition holds.
//
// The functions take the caller's isolation, so a condition may read actor-isolated or
// non-`Sendable` state of the caller:
//
// ```swift
// #expect(await waitUntil { recorder.count == 3 })
// try await waitUntil("the server to see the call") { service.calls == 1 }
// let reply = try await waitFor("the reply") { recorder.messages.first }
// ```

/// A wait of ``waitUntil(_:timeout:every:isolation:_:)`` or
/// ``waitFor(_:timeout:every:isolation:_:)`` ran out of time, or was cancelled, before its
/// condition held.
public struct WaitTimedOut: Error, CustomStringConvertible, Sendable {
    /// What the test waited for, as it described it.
    public var what: String
    /// How long it was allowed to take.
    public var timeout: Duration
    /// Whether the wait ended because its task was cancelled rather than because time ran out.
    public var cancelled: Bool

    /// Creates the error for a wait for `what` bounded by `timeout`.
    public init(what: String, timeout: Duration, cancelled: Bool = false) {
        self.what = what
        self.timeout = timeout
        self.cancelled = cancelled
    }

    /// A sentence for the test report, for example `the reply did not happen within 10.0 seconds`.
    public var description: String {
        cancelled
            ? "the wait for \(what) was cancelled"
            : "\(what) did not happen within \(timeout)"
    }
}

/// Polls `condition` every `interval` until it returns `true` or `timeout` has passed, and
/// returns whether it held.
///
/// The condition is checked at once, then after each interval, and one last time when the time
/// is up, so a condition that holds on time is never reported as failed. Cancelling the calling
/// task ends the wait early with the result of one last check.
///
/// - Parameters:
///   - timeout: How long to wait at most. Generous by default: it only bounds a failing test.
///   - interval: The pause between two checks.
///   - isolation: The caller's isolation, which the condition runs on.
///   - condition: What to wait for; errors it throws end the wait and are rethrown.
/// - Returns: Whether `condition` returned `true` before the time was up.
public func waitUntil(
    timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(5),
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    try await poll(timeout: timeout, every: interval) { try await condition() ? true : nil } != nil
}

/// Polls `condition` every `interval` until it returns `true`, and throws ``WaitTimedOut``
/// naming `what` when it has not after `timeout` (or when the calling task is cancelled).
///
/// ```swift
/// try await waitUntil("the server to see the call") { service.calls("slow") == 1 }
/// ```
///
/// - Parameters:
///   - what: What is awaited, for the error, for example `"the close event"`.
///   - timeout: How long to wait at most. Generous by default: it only bounds a failing test.
///   - interval: The pause between two checks.
///   - isolation: The caller's isolation, which the condition runs on.
///   - condition: What to wait for; errors it throws end the wait and are rethrown.
/// - Throws: ``WaitTimedOut``, or what `condition` throws.
public func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(5),
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async throws {
    _ = try await waitFor(what, timeout: timeout, every: interval) { () async throws -> Bool? in
        try await condition() ? true : nil
    }
}

/// Polls `produce` every `interval` until it returns a value and returns that value; throws
/// ``WaitTimedOut`` naming `what` when it has not after `timeout` (or when the calling task is
/// cancelled).
///
/// ```swift
/// let closure = try await waitFor("the end of the connection") { recorder.closure }
/// ```
///
/// - Parameters:
///   - what: What is awaited, for the error, for example `"message 2"`.
///   - timeout: How long to wait at most. Generous by default: it only bounds a failing test.
///   - interval: The pause between two checks.
///   - isolation: The caller's isolation, which `produce` runs on.
///   - produce: Returns the awaited value once it exists, `nil` until then; errors it throws
///     end the wait and are rethrown (a way to give up early, for example when a connection
///     closed before the awaited message).
/// - Returns: The first value `produce` returned.
/// - Throws: ``WaitTimedOut``, or what `produce` throws.
public func waitFor<Value>(
    _ what: String,
    timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(5),
    isolation: isolated (any Actor)? = #isolation,
    _ produce: () async throws -> Value?
) async throws -> Value {
    if let value = try await poll(timeout: timeout, every: interval, produce) {
        return value
    }
    throw WaitTimedOut(what: what, timeout: timeout, cancelled: Task.isCancelled)
}

/// The one polling loop: checks `produce` at once, then after each `interval`, and a last time
/// once `timeout` has passed or the task was cancelled.
private func poll<Value>(
    timeout: Duration,
    every interval: Duration,
    isolation: isolated (any Actor)? = #isolation,
    _ produce: () async throws -> Value?
) async rethrows -> Value? {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline, !Task.isCancelled {
        if let value = try await produce() {
            return value
        }
        // A cancelled sleep ends early; the loop condition then ends the wait.
        try? await Task.sleep(for: min(interval, max(deadline - clock.now, .zero)))
    }
    return try await produce()
}
