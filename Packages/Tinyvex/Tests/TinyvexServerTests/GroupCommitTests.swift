import Foundation
import GRDB
import RpcDoTesting
import RpcWire
import Synchronization
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// Mutations that arrive together share one commit, and each keeps its own result, version,
/// `requestId` and failure.
@Suite("Tinyvex group commit: one transaction for mutations that arrive together, serial semantics kept", .timeLimit(.minutes(1)))
struct GroupCommitTests {
    /// Holds the engine inside a mutation until released, so that others queue behind it.
    final class Gate: Sendable {
        private let state = Mutex<(entered: Bool, released: Bool)>((false, false))
        private let semaphore = DispatchSemaphore(value: 0)
        /// How many senders have started.
        let started = Atomic<Int>(0)

        var entered: Bool { state.withLock { $0.entered } }

        /// Called by the holding mutation, on the engine: waits (at most 10 s) for ``release()``.
        func hold() {
            state.withLock { $0.entered = true }
            _ = semaphore.wait(timeout: .now() + 10)
        }

        func release() {
            semaphore.signal()
        }
    }

    struct Send: Codable, Sendable {
        let channel: String
        let author: String
        let text: String
    }

    struct Empty: Codable, Sendable {}

    static func schema(gate: Gate) -> TinyvexSchema {
        var schema = TinyvexDemoSchema.schema()
        schema.mutation("test.hold") { (_, _: Empty) -> Bool in
            gate.hold()
            return true
        }
        return schema
    }

    static func args(_ text: String) -> JSONValue {
        ["channel": "general", "author": "ann", "text": .string(text)]
    }

    @Test("mutations queued behind a busy engine share commits; each gets its own id and version, a failing one rolls back alone, and a repeated requestId is applied once")
    func sharedCommit() async throws {
        let gate = Gate()
        let engine = try await TinyvexEngine.open(schema: Self.schema(gate: gate), database: .inMemory, configuration: TinyvexServerConfiguration())
        // The engine is held inside this mutation while the others arrive.
        async let held = engine.mutate(connectionID: nil, identity: nil, requestID: nil, name: "test.hold", args: [:])
        try await waitUntil("the engine to be held") { gate.entered }
        let tooLong = String(repeating: "x", count: TinyvexDemoSchema.maxTextBytes + 1)
        let outcomes = try await withThrowingTaskGroup(of: (Int, TinyvexEngine.MutationOutcome).self) { group in
            for index in 0..<20 {
                group.addTask {
                    // 7 is too long and fails; 12 repeats 11's requestId (with another text).
                    let text = index == 7 ? tooLong : "m\(index)"
                    let requestID = index == 12 ? "r11" : "r\(index)"
                    gate.started.add(1, ordering: .relaxed)
                    do throws(TinyvexServerError) {
                        return (index, .success(try await engine.mutate(
                            connectionID: nil, identity: nil, clientID: "c", requestID: requestID, name: "messages.send", args: Self.args(text))))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            try await waitUntil("every sender to start") { gate.started.load(ordering: .relaxed) == 20 }
            gate.release()
            var outcomes: [Int: TinyvexEngine.MutationOutcome] = [:]
            for try await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        #expect(try await held.value == true)
        let commits = await engine.commitCount
        // One commit for the held mutation, then the twenty queued behind it in a few (one when
        // all of them reached the engine before it was released).
        #expect(commits <= 1 + 10)

        guard case .failure(let failure)? = outcomes[7] else {
            Issue.record("the too-long message did not fail: \(String(describing: outcomes[7]))")
            return
        }
        #expect(failure.code == .mutationFailed)
        var applied: [(index: Int, id: JSONValue, seq: Int64)] = []
        for index in 0..<20 where index != 7 && index != 12 {
            guard case .success(let answer)? = outcomes[index] else {
                Issue.record("mutation \(index) failed: \(String(describing: outcomes[index]))")
                continue
            }
            applied.append((index, answer.value, answer.seq))
        }
        // A repeated requestId answers the stored result of the first.
        if case .success(let first)? = outcomes[11], case .success(let repeated)? = outcomes[12] {
            #expect(repeated.value == first.value)
            #expect(repeated.seq == first.seq)
        } else {
            Issue.record("11 and 12 did not both succeed")
        }
        // Each applied mutation has its own version, and they follow one another.
        let seqs = applied.map(\.seq).sorted()
        #expect(Set(seqs).count == 18)
        #expect(seqs.last.map { $0 - (seqs.first ?? 0) } == 17)
        #expect(Set(applied.map(\.id)).count == 18)
        #expect(await engine.currentVersion == seqs.last)
        // What the store holds: the 18 applied messages, nothing of the failed one.
        let stored = try await engine.query(name: "messages.list", params: ["channel": "general"], identity: nil)
        let texts = stored.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
        #expect(texts.count == 18)
        // Whichever of 11 and 12 (one requestId) reached the engine first was applied, once.
        #expect(texts.filter { $0 == "m11" || $0 == "m12" }.count == 1)
        #expect(!texts.contains(tooLong))
        await engine.close()
    }

    @Test("a database file syncs every commit (synchronous FULL) by default, and NORMAL when configured")
    func durabilitySetting() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        func synchronous(_ durability: TinyvexDurability) throws -> Int? {
            let store = try DocumentStore(.file(path), durability: durability)
            return try store.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        }
        #expect(TinyvexServerConfiguration().durability == .full)
        #expect(try synchronous(TinyvexServerConfiguration().durability) == 2)
        #expect(try synchronous(.normal) == 1)
    }
}
