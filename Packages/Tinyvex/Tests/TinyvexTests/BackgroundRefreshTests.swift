import Dispatch
import Foundation
import RpcDoTesting
import Synchronization
import Testing
import Tinyvex
import TinyvexServer

/// The background pass evaluates a stale query on a committed snapshot away from the engine:
/// mutations commit meanwhile, and one that meets what the evaluation read runs it again.
@Suite("Tinyvex background refresh: mutations commit while a watcher's query runs", .timeLimit(.minutes(1)))
struct BackgroundRefreshTests {
    /// Holds an armed query's evaluation until released (or 10 s pass).
    final class Gate: Sendable {
        private struct State {
            var armed = false
            var entered = false
            var released = false
        }

        private let state = Mutex(State())
        private let semaphore = DispatchSemaphore(value: 0)

        var entered: Bool { state.withLock { $0.entered } }
        var released: Bool { state.withLock { $0.released } }

        func arm() { state.withLock { $0.armed = true } }

        /// Called by the query as it runs: holds it when armed (once).
        func pass() {
            let hold = state.withLock { state -> Bool in
                guard state.armed else { return false }
                state.armed = false
                state.entered = true
                return true
            }
            guard hold else { return }
            _ = semaphore.wait(timeout: .now() + 10)
            state.withLock { $0.released = true }
        }

        func release() {
            state.withLock { $0.released = true }
            semaphore.signal()
        }
    }

    static func schema(gate: Gate) -> TinyvexSchema {
        var schema = TinyvexDemoSchema.schema()
        schema.query("messages.slowList") { (context, params: Channel) -> [String] in
            gate.pass()
            return try context.filter("messages", where: "channel", equals: .string(params.channel)).compactMap { $0["text"]?.stringValue }
        }
        return schema
    }

    @Test("a mutation commits while a watcher's query is held in the background pass, and the watcher then converges to it")
    func mutationsCommitDuringEvaluation() async throws {
        let gate = Gate()
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        try await withInMemoryServer(schema: Self.schema(gate: gate), database: database) { server in
            let watcher = try makeClient(server)
            let writer = try makeClient(server)
            let recorder = ValueRecorder<[String]>()
            let cancellable = watcher.subscribe("messages.slowList", params: Channel(channel: "general"), as: [String].self)
                .sink(receiveCompletion: { _ in }, receiveValue: { recorder.record($0) })
            try await waitUntil("the first value") { recorder.values.last == [] }
            gate.arm()
            // The writer watches nothing: its mutation leaves the watcher to the background pass.
            _ = try await writer.mutation("messages.send", args: Send(channel: "general", author: "w", text: "one"), as: Int64.self)
            try await waitUntil("the background pass to run the query") { gate.entered }
            _ = try await writer.mutation("messages.send", args: Send(channel: "general", author: "w", text: "two"), as: Int64.self)
            // Answered while the evaluation is still held: it does not hold the engine.
            #expect(!gate.released)
            gate.release()
            try await waitUntil("the watcher to show both") { recorder.values.last == ["one", "two"] }
            cancellable.cancel()
            await watcher.close()
            await writer.close()
        }
    }
}
