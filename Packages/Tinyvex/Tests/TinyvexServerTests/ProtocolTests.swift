import Foundation
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// Runs the demo chat schema on a loopback port.
func withDemoServer<T>(
    configuration: TinyvexServerConfiguration = TinyvexServerConfiguration(),
    schema: TinyvexSchema = TinyvexDemoSchema.schema(),
    database: TinyvexDatabase = .inMemory,
    _ body: (TinyvexServer) async throws -> T
) async throws -> T {
    try await TinyvexServer.withServer(schema: schema, database: database, configuration: configuration, host: "127.0.0.1", port: 0, body)
}

/// Runs `body` with a demo server on a new store of `kind`.
func withDemoServer<T>(_ kind: StoreKind, schema: TinyvexSchema = TinyvexDemoSchema.schema(), _ body: (TinyvexServer) async throws -> T) async throws -> T {
    try await kind.withStore { location in
        try await location.open { database in try await withDemoServer(schema: schema, database: database, body) }
    }
}

func send(_ peer: RawPeer, _ requestID: String, channel: String = "general", text: String) async throws -> JSONValue {
    try await peer.call(TinyvexMethod.mutation, [
        "requestId": .string(requestID), "name": "messages.send",
        "args": ["channel": .string(channel), "author": "ann", "text": .string(text)],
    ])
}

@Suite("Tinyvex protocol: methods and notifications", .timeLimit(.minutes(1)))
struct ProtocolMethodTests {
    @Test("connect reports the server version, the chunking feature and no identity")
    func connect() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            let answer = try await peer.call(TinyvexMethod.connect, ["client": ["name": "test", "version": "1"]])
            #expect(answer.result?["serverVersion"] == .string(TinyvexServer.version))
            #expect(answer.result?["features"]?["chunks"] == true)
            #expect(answer.result?["features"]?["maxChunkBytes"] == .integer(65_536))
            #expect(answer.result?["identity"] == .null)
            await peer.close()
        }
    }

    @Test("subscribe sends the first value before its answer, and a mutation's new value before the mutation's answer")
    func subscribeAndMutationOrder() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            let subscribed = try await peer.call(TinyvexMethod.subscribe, ["subId": "s1", "name": "messages.list", "params": ["channel": "general"]])
            #expect(subscribed.result?["accepted"] == true)
            #expect(subscribed.result?["resumed"] == false)
            let first = peer.notifications(TinyvexMethod.data)
            #expect(first.count == 1)
            #expect(first.first?["value"] == .array([]))
            #expect(first.first?["subId"] == "s1")

            let answer = try await send(peer, "r1", text: "hello")
            let id = try #require(answer.result?["value"]?.int64Value)
            let dataIndex = try #require(peer.index { $0["method"] == .string(TinyvexMethod.data) && $0["params"]?["seq"] == answer.result?["seq"] })
            let answerIndex = try #require(peer.index { $0["id"] == answer["id"] && $0["method"] == nil })
            #expect(dataIndex < answerIndex)
            let update = peer.notifications(TinyvexMethod.data).last
            #expect(update?["value"] == .array([["id": .integer(id), "channel": "general", "author": "ann", "text": "hello"]]))
            let firstSeq = try #require(first.first?["seq"]?.int64Value)
            let secondSeq = try #require(update?["seq"]?.int64Value)
            #expect(secondSeq > firstSeq)
            await peer.close()
        }
    }

    @Test("a write outside a query's read set neither re-runs it nor sends data; an unchanged value sends no data")
    func selectiveReactivity() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "g", "name": "messages.list", "params": ["channel": "general"]])
            try await peer.call(TinyvexMethod.subscribe, ["subId": "c", "name": "channels.list"])
            let before = await server.evaluationCount
            _ = try await send(peer, "r1", channel: "random", text: "elsewhere")
            // channels.list read the whole table and changed; messages.list of general did not run.
            #expect(await server.evaluationCount == before + 1)
            #expect(peer.notifications(TinyvexMethod.data).filter { $0["subId"] == "g" }.count == 1)
            #expect(peer.notifications(TinyvexMethod.data).last?["value"] == ["random"])
            // A second message in random re-runs channels.list, whose value stays the same: no data.
            _ = try await send(peer, "r2", channel: "random", text: "again")
            #expect(await server.evaluationCount == before + 2)
            #expect(peer.notifications(TinyvexMethod.data).filter { $0["subId"] == "c" }.count == 2)
            await peer.close()
        }
    }

    @Test("identical subscriptions from two connections, params in any key order, share one live query and one evaluation")
    func sharedEvaluation() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct Two: Codable { let a: String; let b: String }
        schema.query("pair") { (context, params: Two) in try context.filter("messages", where: "channel", equals: .string(params.a + params.b)).count }
        try await withDemoServer(schema: schema) { server in
            let first = try await RawPeer(url: server.url)
            let second = try await RawPeer(url: server.url)
            try await first.sendText(#"{"jsonrpc":"2.0","id":100,"method":"tinyvex/subscribe","params":{"subId":"x","name":"pair","params":{"a":"ge","b":"neral"}}}"#)
            _ = try await first.answer(to: 100)
            try await second.sendText(#"{"jsonrpc":"2.0","id":100,"method":"tinyvex/subscribe","params":{"subId":"y","name":"pair","params":{"b":"neral","a":"ge"}}}"#)
            _ = try await second.answer(to: 100)
            #expect(await server.liveQueryCount == 1)
            let before = await server.evaluationCount
            _ = try await send(first, "r1", text: "hi")
            #expect(await server.evaluationCount == before + 1)
            let seen = try await second.waitFor("the shared update") { _ in second.notifications(TinyvexMethod.data).last { $0["value"] == 1 } }
            #expect(seen["subId"] == "y")
            await first.close()
            await second.close()
        }
    }

    @Test("unsubscribe ends a live query; unsubscribing it again answers TVX001")
    func unsubscribe() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            #expect(try await peer.call(TinyvexMethod.unsubscribe, ["subId": "s"]).result == ["ok": true])
            #expect(await server.liveQueryCount == 0)
            _ = try await send(peer, "r1", text: "unseen")
            #expect(peer.notifications(TinyvexMethod.data).count == 1)
            let again = try await peer.call(TinyvexMethod.unsubscribe, ["subId": "s"])
            #expect(again.errorCode == -32001)
            #expect(again.tinyvexCode == "TVX001")
            await peer.close()
        }
    }

    @Test("ping, a no-op kept for older clients, answers the caller's t, or the server's clock without one")
    func ping() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            #expect(try await peer.call(TinyvexMethod.ping, ["t": 42]).result == ["t": 42])
            #expect(try await peer.call(TinyvexMethod.ping).result?["t"]?.int64Value ?? 0 > 0)
            await peer.close()
        }
    }

    @Test("a value larger than maxChunkBytes arrives as transitionChunks that join to the value")
    func transitionChunks() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxChunkBytes: 64)) { server in
            let peer = try await RawPeer(url: server.url)
            let long = String(repeating: "é漢", count: 40)
            _ = try await send(peer, "r1", text: long)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            let chunks = peer.notifications(TinyvexMethod.transitionChunk)
            #expect(chunks.count > 2)
            #expect(peer.notifications(TinyvexMethod.data).isEmpty)
            #expect(Set(chunks.compactMap { $0["transitionId"] }).count == 1)
            #expect(chunks.map { $0["part"]?.intValue ?? 0 } == Array(1...chunks.count))
            #expect(chunks.allSatisfy { $0["total"]?.intValue == chunks.count && $0["subId"] == "s" })
            let text = chunks.compactMap { $0["chunk"]?.stringValue }.joined()
            let value = try JSONParser().parse(text)
            #expect(value[0]?["text"] == .string(long))
            await peer.close()
        }
    }

    @Test("an action runs later and its mutation reaches the subscribers; the demo's clear and channels queries work")
    func actionAndDemo() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            let answer = try await peer.call(TinyvexMethod.action, [
                "requestId": "a1", "name": "messages.sendLater",
                "args": ["channel": "general", "author": "bob", "text": "later", "delayMs": 20],
            ])
            #expect(answer.result?["requestId"] == "a1")
            let id = try #require(answer.result?["value"]?.int64Value)
            #expect(peer.notifications(TinyvexMethod.data).last?["value"]?[0]?["id"] == .integer(id))
            let cleared = try await peer.call(TinyvexMethod.mutation, ["requestId": "c1", "name": "messages.clear", "args": ["channel": "general"]])
            #expect(cleared.result?["value"] == 1)
            #expect(peer.notifications(TinyvexMethod.data).last?["value"] == .array([]))
            await peer.close()
        }
    }
}

@Suite("Tinyvex protocol: resume by lastSeq", .timeLimit(.minutes(1)))
struct ProtocolResumeTests {
    @Test("lastSeq equal to the stream's seq resumes with nothing sent; behind gets the current value; ahead gets TVX004 then the fresh value at the server's seq, and the server's version does not move")
    func resume() async throws {
        try await withDemoServer { server in
            let first = try await RawPeer(url: server.url)
            try await first.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            _ = try await send(first, "r1", text: "one")
            let seq = try #require(first.notifications(TinyvexMethod.data).last?["seq"]?.int64Value)
            await first.close()

            let equal = try await RawPeer(url: server.url)
            let resumed = try await equal.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"], "lastSeq": .integer(seq)])
            #expect(resumed.result?["resumed"] == true)
            #expect(resumed.result?["seq"] == .integer(seq))
            #expect(equal.notifications(TinyvexMethod.data).isEmpty)

            let behind = try await RawPeer(url: server.url)
            let caughtUp = try await behind.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"], "lastSeq": .integer(seq - 1)])
            #expect(caughtUp.result?["resumed"] == false)
            #expect(behind.notifications(TinyvexMethod.data).map { $0["seq"] } == [.integer(seq)])

            let ahead = try await RawPeer(url: server.url)
            try await ahead.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"], "lastSeq": .integer(seq + 100)])
            let error = try #require(ahead.notifications(TinyvexMethod.error).first)
            #expect(error["code"] == "TVX004")
            #expect(error["subId"] == "s")
            #expect(error["data"]?["serverSeq"] == .integer(seq))
            let fresh = try #require(ahead.notifications(TinyvexMethod.data).first)
            #expect(fresh["seq"] == .integer(seq))
            #expect(ahead.index { $0["method"] == .string(TinyvexMethod.error) } ?? 0 < ahead.index { $0["method"] == .string(TinyvexMethod.data) } ?? 0)
            // A client's number never moves the server's version: the next mutation is the next seq.
            let next = try await send(equal, "r2", text: "two")
            #expect(next.result?["seq"] == .integer(seq + 1))
            for peer in [equal, behind, ahead] { await peer.close() }
        }
    }

    @Test("a file-backed server keeps documents, versions and mutation results across a restart, so a client (by its clientId) resumes with nothing lost or repeated")
    func fileRestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let schema = TinyvexDemoSchema.schema()
        let seq = try await TinyvexServer.withServer(schema: schema, database: .file(path), port: 0) { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.connect, ["clientId": "client-1"])
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            _ = try await send(peer, "r1", text: "kept")
            await peer.close()
            return try #require(peer.notifications(TinyvexMethod.data).last?["seq"]?.int64Value)
        }
        try await TinyvexServer.withServer(schema: schema, database: .file(path), port: 0) { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.connect, ["clientId": "client-1"])
            let resumed = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"], "lastSeq": .integer(seq)])
            #expect(resumed.result?["resumed"] == true)
            #expect(peer.notifications(TinyvexMethod.data).isEmpty)
            let resent = try await send(peer, "r1", text: "kept")
            #expect(resent.result?["seq"] == .integer(seq))
            _ = try await send(peer, "r2", text: "new")
            let values = peer.notifications(TinyvexMethod.data)
            #expect(values.count == 1)
            #expect(values.first?["seq"]?.int64Value ?? 0 > seq)
            #expect(values.first?["value"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["kept", "new"])
            await peer.close()
        }
    }

    @Test("a mutation resent with the same requestId is applied once and answers the stored result")
    func idempotentMutation() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            let first = try await send(peer, "same", text: "once")
            let second = try await send(peer, "same", text: "once")
            #expect(first.result == second.result)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            #expect(peer.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.count == 1)
            await peer.close()
        }
    }
}

@Suite("Tinyvex protocol: error codes", .timeLimit(.minutes(1)))
struct ProtocolErrorTests {
    @Test("malformed JSON-RPC gets -32700, -32600, -32601 and -32602 and the connection keeps working")
    func malformed() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.sendText("{not json")
            let parse = try await peer.waitFor("the parse error") { $0.first { $0.errorCode == -32700 } }
            #expect(parse["id"] == .null)

            try await peer.sendText(#"{"jsonrpc":"1.0","id":7,"method":"tinyvex/ping"}"#)
            let version = try await peer.answer(to: 7)
            #expect(version.errorCode == -32600)

            try await peer.sendText(#"{"jsonrpc":"2.0","method":"tinyvex/ping"}"#)
            let missingID = try await peer.waitFor("the missing-id error") { $0.first { $0.errorCode == -32600 && $0["id"] == .null } }
            #expect(missingID["error"]?["data"] == .string("tinyvex/ping is a request and needs an id"))

            #expect(try await peer.call("tinyvex/nothing").errorCode == -32601)
            #expect(try await peer.call(TinyvexMethod.subscribe, ["subId": 5, "name": "messages.list"]).errorCode == -32602)
            #expect(try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "lastSeq": "x"]).errorCode == -32602)
            #expect(try await peer.call(TinyvexMethod.mutation, ["name": "messages.send"]).errorCode == -32602)
            try await peer.sendText(#"{"jsonrpc":"2.0","id":9,"method":"tinyvex/ping","params":[1]}"#)
            #expect(try await peer.answer(to: 9).errorCode == -32602)

            #expect(try await peer.call(TinyvexMethod.ping, ["t": 1]).result == ["t": 1])
            await peer.close()
        }
    }

    @Test("TVX002: an unknown query, params it cannot decode, a reused subId and too many subscriptions are rejected")
    func subscriptionRejected() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxSubscriptionsPerConnection: 2)) { server in
            let peer = try await RawPeer(url: server.url)
            #expect(try await peer.call(TinyvexMethod.subscribe, ["subId": "a", "name": "nothing"]).tinyvexCode == "TVX002")
            let badParams = try await peer.call(TinyvexMethod.subscribe, ["subId": "a", "name": "messages.list", "params": ["channel": 3]])
            #expect(badParams.tinyvexCode == "TVX002")
            #expect(badParams.errorCode == -32002)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "a", "name": "messages.list", "params": ["channel": "x"]])
            #expect(try await peer.call(TinyvexMethod.subscribe, ["subId": "a", "name": "channels.list"]).tinyvexCode == "TVX002")
            try await peer.call(TinyvexMethod.subscribe, ["subId": "b", "name": "channels.list"])
            #expect(try await peer.call(TinyvexMethod.subscribe, ["subId": "c", "name": "messages.list", "params": ["channel": "y"]]).tinyvexCode == "TVX002")
            await peer.close()
        }
    }

    @Test("TVX002 as a notification: a live query that starts failing is dropped")
    func liveQueryFails() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct None: Codable {}
        schema.query("fragile") { (context, _: None) -> Int in
            let count = try context.all("messages").count
            if count > 0 { throw TinyvexServerError(.subscriptionRejected, "too many") }
            return count
        }
        try await withDemoServer(schema: schema) { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "f", "name": "fragile"])
            _ = try await send(peer, "r1", text: "boom")
            let error = try #require(peer.notifications(TinyvexMethod.error).first)
            #expect(error["code"] == "TVX002")
            #expect(error["subId"] == "f")
            #expect(await server.liveQueryCount == 0)
            #expect(try await peer.call(TinyvexMethod.unsubscribe, ["subId": "f"]).tinyvexCode == "TVX001")
            await peer.close()
        }
    }

    @Test("TVX003: an unknown mutation, bad args and a throwing mutation fail, and the failed transaction leaves nothing behind")
    func mutationFailed() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct None: Codable {}
        schema.mutation("halfway") { (context, _: None) -> Int in
            _ = try context.insert("messages", ["channel": "general", "author": "x", "text": "never"])
            throw TinyvexServerError(.mutationFailed, "changed my mind")
        }
        try await withDemoServer(schema: schema) { server in
            let peer = try await RawPeer(url: server.url)
            #expect(try await peer.call(TinyvexMethod.mutation, ["requestId": "1", "name": "nothing"]).tinyvexCode == "TVX003")
            #expect(try await peer.call(TinyvexMethod.mutation, ["requestId": "2", "name": "messages.send", "args": ["text": 1]]).tinyvexCode == "TVX003")
            #expect(try await peer.call(TinyvexMethod.action, ["requestId": "3", "name": "nothing"]).tinyvexCode == "TVX003")
            let halfway = try await peer.call(TinyvexMethod.mutation, ["requestId": "4", "name": "halfway"])
            #expect(halfway.tinyvexCode == "TVX003")
            #expect(halfway.errorCode == -32003)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            #expect(peer.notifications(TinyvexMethod.data).last?["value"] == .array([]))
            await peer.close()
        }
    }

    @Test("TVX006: a refused token, and a function that needs an identity called without one; an accepted token's identity reaches the function")
    func unauthorized() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct None: Codable {}
        schema.query("whoami", requiresIdentity: true) { (context, _: None) in context.identity ?? "" }
        schema.mutation("secret", requiresIdentity: true) { (_, _: None) in 1 }
        let configuration = TinyvexServerConfiguration(authenticate: { token in token == "good" ? "alice" : nil })
        try await withDemoServer(configuration: configuration, schema: schema) { server in
            let peer = try await RawPeer(url: server.url)
            let refused = try await peer.call(TinyvexMethod.connect, ["token": "bad"])
            #expect(refused.tinyvexCode == "TVX006")
            #expect(refused.errorCode == -32006)
            #expect(try await peer.call(TinyvexMethod.subscribe, ["subId": "w", "name": "whoami"]).tinyvexCode == "TVX006")
            #expect(try await peer.call(TinyvexMethod.mutation, ["requestId": "1", "name": "secret"]).tinyvexCode == "TVX006")
            #expect(try await peer.call(TinyvexMethod.setToken, ["token": "bad"]).tinyvexCode == "TVX006")
            #expect(try await peer.call(TinyvexMethod.setToken, ["token": "good"]).result == ["ok": true, "identity": "alice"])
            try await peer.call(TinyvexMethod.subscribe, ["subId": "w", "name": "whoami"])
            #expect(peer.notifications(TinyvexMethod.data).last?["value"] == "alice")
            #expect(try await peer.call(TinyvexMethod.mutation, ["requestId": "2", "name": "secret"]).result?["value"] == 1)
            #expect(try await peer.call(TinyvexMethod.setToken, ["token": .null]).result == ["ok": true, "identity": .null])
            #expect(try await peer.call(TinyvexMethod.mutation, ["requestId": "3", "name": "secret"]).tinyvexCode == "TVX006")
            await peer.close()
        }
    }

    @Test("TVX007: an action past actionTimeout and a query past maxEvaluationTime")
    func timeouts() async throws {
        let configuration = TinyvexServerConfiguration(maxEvaluationTime: .zero, actionTimeout: .milliseconds(50))
        try await withDemoServer(configuration: configuration) { server in
            let peer = try await RawPeer(url: server.url)
            let slow = try await peer.call(TinyvexMethod.action, [
                "requestId": "a", "name": "messages.sendLater",
                "args": ["channel": "general", "author": "x", "text": "late", "delayMs": 5_000],
            ])
            #expect(slow.tinyvexCode == "TVX007")
            #expect(slow.errorCode == -32007)
            let query = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            #expect(query.tinyvexCode == "TVX007")
            await peer.close()
        }
    }
}
