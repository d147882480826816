public import Foundation
import RpcWire
import TinyvexProtocol

/// An action's scheduler (`context.scheduler`): each function it schedules is stored at once,
/// in a transaction of its own (an action is not a transaction).
///
/// ```swift
/// let id = try await context.scheduler.runAfter(.seconds(5), "messages.send", args: message)
/// ```
///
/// A scheduled mutation runs exactly once, a scheduled action at most once, without an
/// identity (see ``TinyvexMutationScheduler``).
public struct TinyvexActionScheduler: Sendable {
    let engine: TinyvexEngine

    /// Schedules the mutation or action `name` with `args` to run `delay` from now (now when
    /// the delay is not positive); returns its id, for ``cancel(_:)``.
    ///
    /// - Throws: ``TinyvexServerError`` `TVX003`, as ``TinyvexMutationScheduler/runAfter(_:_:args:)``.
    @discardableResult
    public func runAfter(_ delay: Duration, _ name: String, args: some Encodable) async throws -> String {
        try await store(name, args: args, runAt: try engine.jobs.runAt(after: delay))
    }

    /// Schedules the mutation or action `name` with `args` to run at `date` (now when it is
    /// past); returns its id, for ``cancel(_:)``.
    ///
    /// - Throws: As ``runAfter(_:_:args:)``.
    @discardableResult
    public func runAt(_ date: Date, _ name: String, args: some Encodable) async throws -> String {
        try await store(name, args: args, runAt: try engine.jobs.runAt(date))
    }

    /// Cancels the scheduled function `id` unless it has run or started; returns whether it
    /// was waiting.
    ///
    /// - Throws: ``TinyvexServerError`` `TVX003` when the store fails.
    @discardableResult
    public func cancel(_ id: String) async throws -> Bool {
        guard let row = Int64(id) else { return false }
        return try await engine.cancelScheduled(row)
    }

    private func store(_ name: String, args: some Encodable, runAt: Int64) async throws -> String {
        let encoded: JSONValue
        do {
            encoded = try JSONValueEncoder().encode(args)
        } catch {
            throw TinyvexServerError(.mutationFailed, "the arguments of the scheduled \(name) do not encode: \(error)")
        }
        return String(try await engine.schedule(name, args: encoded, runAt: runAt))
    }
}
