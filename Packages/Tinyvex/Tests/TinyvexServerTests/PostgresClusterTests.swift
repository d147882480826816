import Foundation
import RpcTesting
import RpcWire
import Testing
import TinyvexPostgres
import TinyvexProtocol
@testable import TinyvexServer

/// Servers sharing one PostgreSQL database: commits on one reach the live queries on another.
@Suite("Tinyvex on PostgreSQL: several servers on one database", .timeLimit(.minutes(1)))
struct PostgresClusterTests {
    /// Runs `body` with two servers, nodes `a` and `b`, on one new database, and a peer of each.
    private func withTwoNodes(_ body: (InMemoryPeer, InMemoryPeer) async throws -> Void) async throws {
        try await withTwoNodes { peerA, peerB, _ in try await body(peerA, peerB) }
    }

    /// As ``withTwoNodes(_:)``, with the database's URL.
    private func withTwoNodes(_ body: (InMemoryPeer, InMemoryPeer, String) async throws -> Void) async throws {
        try await PostgresTestDatabase.with { url in
            try await TinyvexPostgres.withDatabase(url: url, node: "a") { first in
                try await TinyvexPostgres.withDatabase(url: url, node: "b") { second in
                    try await TinyvexServer.withEmbeddedServer(schema: TinyvexDemoSchema.schema(), database: first) { nodeA in
                        try await TinyvexServer.withEmbeddedServer(schema: TinyvexDemoSchema.schema(), database: second) { nodeB in
                            let peerA = InMemoryPeer(serving: nodeA)
                            let peerB = InMemoryPeer(serving: nodeB)
                            do {
                                try await body(peerA, peerB, url)
                            } catch {
                                await peerA.close()
                                await peerB.close()
                                throw error
                            }
                            await peerA.close()
                            await peerB.close()
                        }
                    }
                }
            }
        }
    }

    /// The `data` notifications `peer` received for `subID`: seq and message texts.
    private func data(_ peer: InMemoryPeer, _ subID: String) -> [(seq: Int64, texts: [String])] {
        peer.messages.compactMap { message in
            guard message["method"] == .string(TinyvexMethod.data), let params = message["params"], params["subId"] == .string(subID),
                let seq = params["seq"]?.int64Value
            else { return nil }
            return (seq, params["value"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? [])
        }
    }

    private func send(_ peer: InMemoryPeer, _ requestID: String, _ text: String) async throws -> Int64 {
        let answer = try await peer.call(TinyvexMethod.mutation, [
            "requestId": .string(requestID), "name": "messages.send", "args": ["channel": "general", "author": "ann", "text": .string(text)],
        ])
        return try #require(answer["result"]?["seq"]?.int64Value)
    }

    @Test(
        "a subscriber on node B sees a mutation made on node A, at the seq node A answered; seqs come from the database in one order",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func commitReachesOtherNode() async throws {
        try await withTwoNodes { peerA, peerB in
            _ = try await peerB.call(TinyvexMethod.subscribe, ["subId": "b", "name": "messages.list", "params": ["channel": "general"]])
            _ = try await peerA.call(TinyvexMethod.subscribe, ["subId": "a", "name": "messages.list", "params": ["channel": "general"]])
            let first = try await send(peerA, "r1", "from a")
            try await waitUntil("node B to show node A's message") { data(peerB, "b").last?.texts == ["from a"] }
            #expect(data(peerB, "b").last?.seq == first)
            let second = try await send(peerB, "r2", "from b")
            #expect(second == first + 1)
            try await waitUntil("node A to show node B's message") { data(peerA, "a").last?.texts == ["from a", "from b"] }
            #expect(data(peerA, "a").last?.seq == second)
        }
    }

    @Test(
        "after every connection of both nodes is cut, they connect again and node B sees node A's next mutation",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func reconnectAfterCut() async throws {
        try await withTwoNodes { peerA, peerB, url in
            _ = try await peerB.call(TinyvexMethod.subscribe, ["subId": "b", "name": "messages.list", "params": ["channel": "general"]])
            _ = try await send(peerA, "r1", "before")
            try await waitUntil("node B to show the first message") { data(peerB, "b").last?.texts == ["before"] }
            let cluster = try #require(PostgresTestDatabase.clusterURL)
            let name = try #require(URLComponents(string: url)?.path.dropFirst())
            _ = try await PostgresTestDatabase.query(
                cluster, "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = '\(name)'")
            var sent = false
            try await waitUntil("node A to write again") {
                let answer = try await peerA.call(TinyvexMethod.mutation, [
                    "requestId": "r2", "name": "messages.send", "args": ["channel": "general", "author": "ann", "text": "after"],
                ])
                sent = answer["result"] != nil
                return sent
            }
            try await waitUntil("node B to show the message sent after the cut") { data(peerB, "b").last?.texts == ["before", "after"] }
        }
    }

    @Test(
        "a mutation scheduled on node A runs once on node B when node A stops before it is due",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func scheduledRunsOnOtherNode() async throws {
        try await PostgresTestDatabase.with { url in
            try await TinyvexPostgres.withDatabase(url: url, node: "b") { second in
                try await TinyvexServer.withEmbeddedServer(schema: TinyvexDemoSchema.schema(), database: second) { nodeB in
                    let peerB = InMemoryPeer(serving: nodeB)
                    _ = try await peerB.call(TinyvexMethod.subscribe, ["subId": "b", "name": "messages.list", "params": ["channel": "later"]])
                    try await TinyvexPostgres.withDatabase(url: url, node: "a") { first in
                        try await TinyvexServer.withEmbeddedServer(schema: TinyvexDemoSchema.schema(), database: first) { nodeA in
                            let peerA = InMemoryPeer(serving: nodeA)
                            let answer = try await peerA.call(TinyvexMethod.mutation, [
                                "requestId": "s1", "name": "messages.schedule",
                                "args": ["channel": "later", "author": "ann", "text": "from a", "delayMs": 300],
                            ])
                            #expect(answer["result"] != nil)
                            await peerA.close()
                        }
                    }
                    // Node A is gone; node B runs the function when it is due.
                    try await waitUntil("node B to run node A's scheduled mutation") { data(peerB, "b").last?.texts == ["from a"] }
                    #expect(await nodeB.engine.pendingScheduledCount == 0)
                    await peerB.close()
                }
            }
        }
    }

    @Test(
        "a client moved from node A to node B with its lastSeq resumes there with nothing resent",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func resumeOnOtherNode() async throws {
        try await withTwoNodes { peerA, peerB in
            _ = try await peerA.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            let seq = try await send(peerA, "r1", "one")
            try await waitUntil("node A's subscriber to have the message") { data(peerA, "s").last?.seq == seq }
            let resumed = try await peerB.call(
                TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"], "lastSeq": .integer(seq)])
            #expect(resumed["result"]?["resumed"] == true)
            #expect(resumed["result"]?["seq"] == .integer(seq))
            #expect(data(peerB, "s").isEmpty)
            // What follows on node B continues from that seq.
            let next = try await send(peerA, "r2", "two")
            try await waitUntil("node B to show the next message") { data(peerB, "s").last?.texts == ["one", "two"] }
            #expect(data(peerB, "s").map(\.seq) == [next])
        }
    }
}
