import Foundation
import RpcDoTesting
import RpcWire
import Synchronization
import Testing
import TinyvexProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Three tinyvex serve processes on one PostgreSQL database, one killed with SIGKILL mid-flood", .enabled(if: PostgresTestDatabase.isAvailable))
struct ClusterKillTests {
    /// What the flood's senders saw: every answered mutation's request id and document id.
    final class Answers: Sendable {
        let byRequest = Mutex<[String: Int64]>([:])
        let sent = Mutex(0)
        let killed = Mutex(false)
    }

    @Test("1,000 mutations from clients on all three nodes, node B killed with SIGKILL among them: every answered mutation is in the database exactly once, and a live query on node C converges to the database's value")
    func nodeKilledDuringFlood() async throws {
        try await PostgresTestDatabase.with { url in
            var processes: [CommandProcess] = []
            defer { for process in processes { process.kill() } }
            for _ in 0 ..< 3 {
                processes.append(try await CommandTests.serve(["--postgres", url]))
            }
            let urls = processes.map { $0.announcement("READY") ?? "-" }
            let watcher = try await RawPeer(url: urls[2])
            try await watcher.call(TinyvexMethod.subscribe, ["subId": "flood", "name": "messages.list", "params": ["channel": "flood"]])

            let answers = Answers()
            let total = 1_000
            let victim = processes[1]
            let nodeURLs = urls
            // Three senders, one per node, taking the next request in turn.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for node in 0 ..< 3 {
                    let peer = try await RawPeer(url: nodeURLs[node])
                    group.addTask {
                        while true {
                            let index = answers.sent.withLock { sent -> Int? in
                                guard sent < total else { return nil }
                                sent += 1
                                return sent
                            }
                            guard let index else { break }
                            // Node B dies at once, mid-flood, by whichever sender reaches the 300th first.
                            if index >= 300, answers.killed.withLock({ killed in defer { killed = true }; return !killed }) {
                                victim.kill()
                            }
                            let requestID = "n\(node)-\(index)"
                            guard let answer = try? await peer.call(TinyvexMethod.mutation, [
                                "requestId": .string(requestID), "name": "messages.send",
                                "args": ["channel": "flood", "author": .string("n\(node)"), "text": .string(requestID)],
                            ]), let id = answer.result?["value"]?.int64Value else {
                                // Node B's sender stops at its first failure: its node is gone.
                                if node == 1 { break }
                                continue
                            }
                            answers.byRequest.withLock { $0[requestID] = id }
                        }
                        await peer.close()
                    }
                }
                try await group.waitForAll()
            }
            #expect(await victim.waitForExit() == SIGKILL)

            // The database's value, read through node A.
            let reader = try await RawPeer(url: urls[0])
            let read = try await reader.call(TinyvexMethod.query, ["name": "messages.list", "params": ["channel": "flood"]])
            let stored = try #require(read.result?["value"]?.arrayValue)
            let texts = stored.compactMap { $0["text"]?.stringValue }
            let ids = stored.compactMap { $0["id"]?.int64Value }
            #expect(Set(texts).count == texts.count && Set(ids).count == ids.count, "a mutation is stored twice")
            let answered = answers.byRequest.withLock { $0 }
            #expect(answered.count >= 600, "only \(answered.count) mutations were answered")
            let storedByText = Dictionary(stored.compactMap { value in value["text"]?.stringValue.map { ($0, value["id"]?.int64Value) } }, uniquingKeysWith: { first, _ in first })
            for (requestID, id) in answered {
                #expect(storedByText[requestID] == id, "the answered mutation \(requestID) is not stored as answered")
            }
            // Node C's live query converges to the database's value.
            try await waitUntil("node C's live query to show the database's value", timeout: .seconds(30)) {
                watcher.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.count == stored.count
            }
            #expect(watcher.notifications(TinyvexMethod.data).last?["value"]?.arrayValue == stored)
            await reader.close()
            await watcher.close()
            for process in processes where process.isRunning {
                process.terminate()
                _ = await process.waitForExit()
            }
        }
    }
}
