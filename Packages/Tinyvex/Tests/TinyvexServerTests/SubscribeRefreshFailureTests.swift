import Dispatch
import Foundation
import RpcDoTesting
import RpcWire
import Synchronization
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// A subscription made while its query is stale: the query runs again first, and when that run
/// fails, the subscriptions it ended stay ended.
@Suite("Tinyvex subscribe: a failed refresh of a stale query is not undone", .timeLimit(.minutes(1)))
struct SubscribeRefreshFailureTests {
    /// What the test makes the queries do: `gate.watch` blocks while `blocking` (holding the
    /// background pass), `items.flaky` fails once when `failNext`.
    final class Control: Sendable {
        struct State {
            var blocking = false
            var entered = false
            var failNext = false
        }

        let state = Mutex(State())
        let release = DispatchSemaphore(value: 0)

        var entered: Bool { state.withLock { $0.entered } }
    }

    struct None: Codable {}
    struct Item: Codable { let name: String }

    static func schema(_ control: Control) -> TinyvexSchema {
        var schema = TinyvexSchema()
        schema.query("gate.watch") { (context, _: None) -> Int in
            let count = try context.all("gate").count
            let block = control.state.withLock { state in
                guard state.blocking else { return false }
                state.entered = true
                return true
            }
            // Holds the background pass here, on a reader of the file, until the test lets go.
            if block { control.release.wait() }
            return count
        }
        schema.query("items.flaky") { (context, _: None) -> Int in
            let count = try context.all("items").count
            let fail = control.state.withLock { state in
                defer { state.failNext = false }
                return state.failNext
            }
            if fail { throw TinyvexServerError(.subscriptionRejected, "failing once, as the test asks") }
            return count
        }
        schema.mutation("gate.open") { (context, _: None) -> Int64 in try context.insert("gate", [:]) }
        schema.mutation("items.add") { (context, item: Item) -> Int64 in try context.insert("items", ["name": .string(item.name)]) }
        return schema
    }

    @Test("a subscription whose stale query fails to refresh ends the connection's other subscription of it for good, not only until the new one is made")
    func failedRefreshStaysFailed() async throws {
        let control = Control()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        // A file, so that the background pass reads a snapshot while mutations commit.
        try await TinyvexServer.withEmbeddedServer(schema: Self.schema(control), database: .file(path)) { server in
            let (ann, watcher, writer) = (InMemoryPeer(serving: server), InMemoryPeer(serving: server), InMemoryPeer(serving: server))
            defer { control.release.signal() }
            _ = try await ann.call(TinyvexMethod.subscribe, ["subId": "a", "name": "items.flaky", "params": [:]])
            _ = try await watcher.call(TinyvexMethod.subscribe, ["subId": "w", "name": "gate.watch", "params": [:]])
            // The background pass starts on gate.watch and is held there.
            control.state.withLock { $0.blocking = true }
            _ = try await writer.call(TinyvexMethod.mutation, ["requestId": "g1", "name": "gate.open", "args": [:]])
            try await waitUntil("the background pass held in gate.watch") { control.entered }
            // items.flaky is stale now, and stays so while the pass is held.
            _ = try await writer.call(TinyvexMethod.mutation, ["requestId": "i1", "name": "items.add", "args": ["name": "x"]])
            control.state.withLock { $0.failNext = true }
            // ann subscribes to the same query again: its refresh fails (ending "a"), then it
            // runs again for "b" and succeeds.
            let second = try await ann.call(TinyvexMethod.subscribe, ["subId": "b", "name": "items.flaky", "params": [:]])
            #expect(second["error"] == nil)
            let notice = try await ann.waitFor("the error notice of a") { messages in
                messages.first { $0["method"] == .string(TinyvexMethod.error) && $0["params"]?["subId"] == "a" }
            }
            #expect(notice["params"]?["code"] == "TVX002")
            control.state.withLock { $0.blocking = false }
            control.release.signal()
            // "a" is gone: unsubscribing it is refused, while "b" is live.
            let unsubscribeA = try await ann.call(TinyvexMethod.unsubscribe, ["subId": "a"])
            #expect(unsubscribeA["error"] != nil, "\(unsubscribeA)")
            let unsubscribeB = try await ann.call(TinyvexMethod.unsubscribe, ["subId": "b"])
            #expect(unsubscribeB["error"] == nil, "\(unsubscribeB)")
            for peer in [ann, watcher, writer] { await peer.close() }
        }
    }
}
