#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Dispatch
import Foundation
import RpcDoTesting
import Synchronization
import Testing
import Tinyvex
import TinyvexProtocol
import TinyvexServer

/// `mutation(_:args:as:optimisticUpdate:)` against an in-memory server whose mutation the test
/// holds, so that the optimistic value is provably shown while the mutation is in flight.
@Suite("Tinyvex optimistic updates, in memory", .timeLimit(.minutes(1)))
struct OptimisticUpdateTests {
    /// Holds the engine inside `test.send` until released, once per release.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let entered = Atomic<Int>(0)

        var entries: Int { entered.load(ordering: .acquiring) }

        func hold() {
            entered.add(1, ordering: .releasing)
            _ = semaphore.wait(timeout: .now() + 10)
        }

        func release() {
            semaphore.signal()
        }
    }

    struct HeldSend: Codable, Sendable {
        let channel: String
        let text: String
        var fail = false
    }

    static func schema(_ gate: Gate) -> TinyvexSchema {
        var schema = TinyvexDemoSchema.schema()
        schema.mutation("test.send") { (context, args: HeldSend) -> Int64 in
            gate.hold()
            if args.fail { throw TinyvexServerError(.mutationFailed, "refused") }
            return try context.insert("messages", ["channel": .string(args.channel), "author": "me", "text": .string(args.text)])
        }
        return schema
    }

    /// Appends a message with a made-up id to the channel's list.
    static func appending(_ text: String, id: Int64) -> @Sendable (inout OptimisticLocalStore) -> Void {
        { store in
            var messages = store.getQuery("messages.list", params: Channel(channel: "g"), as: [Message].self) ?? []
            messages.append(Message(id: id, channel: "g", author: "me", text: text))
            store.setQuery("messages.list", params: Channel(channel: "g"), value: messages)
        }
    }

    static func texts(_ value: [Message]) -> [String] { value.map(\.text) }

    @Test("the update is shown at once while the mutation is held, then replaced by the server's value in one step (never both)")
    func appliedThenReplaced() async throws {
        let gate = Gate()
        try await withInMemoryServer(schema: Self.schema(gate)) { server in
            let client = try makeClient(server)
            let (recorder, cancellable) = record(client, channel: "g")
            try await waitUntil("the first value") { recorder.values.count == 1 }
            async let id = client.mutation("test.send", args: HeldSend(channel: "g", text: "hi"), as: Int64.self, optimisticUpdate: Self.appending("hi", id: -1))
            try await waitUntil("the optimistic value, while the server holds the mutation") {
                recorder.values.last.map(Self.texts) == ["hi"] && gate.entries == 1
            }
            #expect(recorder.values.last?.first?.id == -1)
            gate.release()
            let realID = try await id
            #expect(recorder.values.last == [Message(id: realID, channel: "g", author: "me", text: "hi")])
            #expect(recorder.values.allSatisfy { $0.count <= 1 })
            cancellable.cancel()
            await client.close()
        }
    }

    @Test("a failed mutation rolls its update back, and the mutation throws")
    func rolledBack() async throws {
        let gate = Gate()
        try await withInMemoryServer(schema: Self.schema(gate)) { server in
            let client = try makeClient(server)
            let (recorder, cancellable) = record(client, channel: "g")
            try await waitUntil("the first value") { recorder.values.count == 1 }
            async let outcome = outcome {
                try await client.mutation(
                    "test.send", args: HeldSend(channel: "g", text: "no", fail: true), as: Int64.self, optimisticUpdate: Self.appending("no", id: -1))
            }
            try await waitUntil("the optimistic value") { recorder.values.last.map(Self.texts) == ["no"] && gate.entries == 1 }
            gate.release()
            guard case .failure(let error) = await outcome, case .server(let code, _, _)? = error as? TinyvexError else {
                Issue.record("the mutation did not fail with a server error")
                return
            }
            #expect(code == "TVX003")
            #expect(recorder.values.last == [])
            cancellable.cancel()
            await client.close()
        }
    }

    @Test("two mutations in flight compose their updates in order; each is replaced by the server's value as its commit arrives")
    func composeInOrder() async throws {
        let gate = Gate()
        try await withInMemoryServer(schema: Self.schema(gate)) { server in
            let client = try makeClient(server)
            let (recorder, cancellable) = record(client, channel: "g")
            try await waitUntil("the first value") { recorder.values.count == 1 }
            async let first = client.mutation("test.send", args: HeldSend(channel: "g", text: "A"), as: Int64.self, optimisticUpdate: Self.appending("A", id: -1))
            try await waitUntil("the first update, its mutation held") { recorder.values.last.map(Self.texts) == ["A"] && gate.entries == 1 }
            async let second = client.mutation("test.send", args: HeldSend(channel: "g", text: "B"), as: Int64.self, optimisticUpdate: Self.appending("B", id: -2))
            try await waitUntil("both updates, in order") { recorder.values.last.map(Self.texts) == ["A", "B"] }
            gate.release()
            let firstID = try await first
            gate.release()
            let secondID = try await second
            #expect(recorder.values.last.map { $0.map(\.id) } == [firstID, secondID])
            #expect(recorder.values.last.map(Self.texts) == ["A", "B"])
            // Only ever A before B, and at most the two of them.
            #expect(recorder.values.allSatisfy { Self.texts($0) == Array(["A", "B"].prefix($0.count)) })
            cancellable.cancel()
            await client.close()
        }
    }
}
