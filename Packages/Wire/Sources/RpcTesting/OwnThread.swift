import Foundation

/// Runs `body` on a thread of its own and returns what it returns, or throws what it throws.
///
/// For test code that blocks (a blocking socket, a long synchronous loop): on the cooperative
/// pool it would hold one of its few threads, and the tasks the test waits for (a server's
/// handlers) might not get to run meanwhile.
///
/// ```swift
/// let sent = try await onOwnThread { try client.sendUntilRefused(frames) }
/// ```
///
/// - Parameters:
///   - stackSize: The thread's stack size in bytes; `nil` for the platform's default. A small
///     stack makes a test fail early if `body` recurses more than it should.
///   - body: The blocking work.
public func onOwnThread<T: Sendable>(
    stackSize: Int? = nil,
    _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}
