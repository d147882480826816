import RpcTransport
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// `tinyvex/transition`: a connection that asks for it at `tinyvex/connect` gets what a commit
/// changes in its subscriptions as one message at one version; the others keep `tinyvex/data`.
@Suite("Tinyvex transitions: one message per commit for a connection that asks", .timeLimit(.minutes(1)))
struct TransitionProtocolTests {
    private func withPeers(
        configuration: TinyvexServerConfiguration = TinyvexServerConfiguration(), _ body: (InMemoryPeer, InMemoryPeer) async throws -> Void
    ) async throws {
        try await TinyvexServer.withEmbeddedServer(schema: TinyvexDemoSchema.schema(), configuration: configuration) { server in
            let asking = InMemoryPeer(serving: server)
            let plain = InMemoryPeer(serving: server)
            do {
                try await body(asking, plain)
            } catch {
                await asking.close()
                await plain.close()
                throw error
            }
            await asking.close()
            await plain.close()
        }
    }

    private func send(_ peer: InMemoryPeer, _ requestID: String, channel: String, text: String = "hi") async throws -> JSONValue {
        try await peer.call(TinyvexMethod.mutation, [
            "requestId": .string(requestID), "name": "messages.send",
            "args": ["channel": .string(channel), "author": "ann", "text": .string(text)],
        ])
    }

    private func subscribe(_ peer: InMemoryPeer, _ subID: String, channel: String) async throws -> JSONValue {
        try await peer.call(TinyvexMethod.subscribe, ["subId": .string(subID), "name": "messages.list", "params": ["channel": .string(channel)]])
    }

    /// The index of the first message matching `match`.
    private func position(_ peer: InMemoryPeer, _ match: (JSONValue) -> Bool) -> Int? {
        peer.messages.firstIndex(where: match)
    }

    @Test("connect with features.transitions says it is on; first values and a commit's changes come as one transition at the mutation's version, naming its requestId, before the answer; data is never sent")
    func transitions() async throws {
        try await withPeers { asking, plain in
            let connected = try await asking.call(TinyvexMethod.connect, ["clientId": "c1", "features": ["transitions": true]])
            #expect(connected.result?["features"]?["transitions"] == true)
            let refused = try await plain.call(TinyvexMethod.connect, ["clientId": "c2"])
            #expect(refused.result?["features"]?["transitions"] == false)
            _ = try await subscribe(asking, "a", channel: "a")
            _ = try await subscribe(asking, "b", channel: "b")
            _ = try await subscribe(plain, "a", channel: "a")
            #expect(asking.notifications(TinyvexMethod.transition).count == 2)
            let first = try #require(asking.notifications(TinyvexMethod.transition).first)
            #expect(first["changes"] == [["subId": "a", "seq": 0, "value": []]])

            // The connection's own mutation: its transition leaves before its answer.
            let sent = try await send(asking, "r1", channel: "b")
            let seq = try #require(sent.result?["seq"])
            let transitions = asking.notifications(TinyvexMethod.transition)
            let last = try #require(transitions.last)
            #expect(last["version"] == seq)
            #expect(last["requestIds"] == ["r1"])
            #expect(last["changes"]?.arrayValue?.count == 1)
            #expect(last["changes"]?[0]?["subId"] == "b")
            let transitionAt = try #require(position(asking) { $0["method"] == .string(TinyvexMethod.transition) && $0["params"]?["requestIds"] == ["r1"] })
            let answerAt = try #require(position(asking) { $0["result"]?["requestId"] == "r1" })
            #expect(transitionAt < answerAt)
            #expect(asking.notifications(TinyvexMethod.data).isEmpty)

            // The other connection, which did not ask, keeps per-subscription data.
            _ = try await send(plain, "r2", channel: "a")
            #expect(plain.notifications(TinyvexMethod.data).count == 2)
            #expect(plain.notifications(TinyvexMethod.transition).isEmpty)
            // The asking connection sees plain's write to channel a in a transition of its own.
            let seen = try await asking.waitFor("a transition with channel a's new value") { _ in
                asking.notifications(TinyvexMethod.transition).last { $0["changes"]?[0]?["subId"] == "a" && $0["version"] != .integer(0) }
            }
            #expect(seen["requestIds"] == nil)
        }
    }

    @Test("a transition whose params are longer than maxChunkBytes comes as transitionChunks without a subId that join to its params")
    func chunked() async throws {
        var configuration = TinyvexServerConfiguration()
        configuration.maxChunkBytes = 256
        try await withPeers(configuration: configuration) { asking, _ in
            _ = try await asking.call(TinyvexMethod.connect, ["features": ["transitions": true]])
            _ = try await subscribe(asking, "a", channel: "a")
            _ = try await subscribe(asking, "b", channel: "b")
            let text = String(repeating: "é", count: 300)
            let sent = try await send(asking, "r1", channel: "a", text: text)
            let chunks = asking.notifications(TinyvexMethod.transitionChunk)
            #expect(chunks.count > 2)
            #expect(chunks.allSatisfy { $0["subId"] == nil && $0["transitionId"] == chunks.first?["transitionId"] })
            let joined = chunks.compactMap { $0["chunk"]?.stringValue }.joined()
            let params = try JSONParser().parse(joined)
            #expect(params["version"] == sent.result?["seq"])
            #expect(params["requestIds"] == ["r1"])
            #expect(params["changes"]?[0]?["value"]?[0]?["text"] == .string(text))
        }
    }

    @Test("a transition waiting in the send queue takes in a newer one: newer values, the newer version, both commits' requestIds, one notice")
    func merges() async {
        let outbox = Outbox(pauseItems: 100, pauseBytes: 1 << 20, maxBytes: 1 << 24)
        let one = EncodedValue(text: Array("1".utf8))
        let two = EncodedValue(text: Array("2".utf8))
        outbox.push(Outbox.Item(transition: Transition(version: 1, changes: [.init(subID: "a", seq: 1, value: one)], requestIDs: ["r1"])))
        outbox.push(Outbox.Item(transition: Transition(
            version: 2, changes: [.init(subID: "a", seq: 2, value: two), .init(subID: "b", seq: 2, value: two)], requestIDs: ["r2"])))
        #expect(outbox.count == 2)
        #expect(outbox.coalescedCount == 1)
        guard case .transition(let merged)? = await outbox.next()?.payload else {
            Issue.record("the first item is not the merged transition")
            return
        }
        #expect(merged.version == 2)
        #expect(merged.requestIDs == ["r1", "r2"])
        #expect(merged.changes.map(\.subID).sorted() == ["a", "b"])
        #expect(merged.changes.allSatisfy { $0.seq == 2 })
        let notice = await outbox.next()
        #expect(notice?.messages.first.map { String(decoding: $0.bytes, as: UTF8.self).contains("TVX005") } == true)
    }

    @Test("a transition queued after a control item waits behind it rather than merging ahead of it")
    func controlSeals() async {
        let outbox = Outbox(pauseItems: 100, pauseBytes: 1 << 20, maxBytes: 1 << 24)
        let one = EncodedValue(text: Array("1".utf8))
        outbox.push(Outbox.Item(transition: Transition(version: 1, changes: [.init(subID: "a", seq: 1, value: one)], requestIDs: [])))
        outbox.push(Outbox.Item(kind: .control, messages: [.text("notice")]))
        outbox.push(Outbox.Item(transition: Transition(version: 2, changes: [.init(subID: "b", seq: 2, value: one)], requestIDs: [])))
        outbox.push(Outbox.Item(transition: Transition(version: 3, changes: [.init(subID: "b", seq: 3, value: one)], requestIDs: [])))
        var order: [String] = []
        while outbox.count > 0, let item = await outbox.next() {
            switch item.payload {
            case .transition(let transition): order.append("v\(transition.version)")
            case .messages(let messages): order.append(messages.first.map { String(decoding: $0.bytes, as: UTF8.self).contains("TVX005") ? "TVX005" : "control" } ?? "")
            case .value: order.append("data")
            }
        }
        #expect(order == ["v1", "control", "v3", "TVX005"])
    }
}
