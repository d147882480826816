import Foundation
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

@Suite("Tinyvex hardening: text is compared whole, NUL and all, on SQLite and PostgreSQL", .timeLimit(.minutes(1)))
struct TextExactnessTests {
    @Test("a channel that differs after a NUL neither reads nor clears another channel's messages", arguments: StoreKind.available)
    func channelAfterNUL(kind: StoreKind) async throws {
        try await withDemoServer(kind) { server in
            let peer = try await RawPeer(url: server.url)
            _ = try await send(peer, "r1", channel: "alice", text: "private")
            _ = try await send(peer, "r2", channel: "alice\u{0}other", text: "theirs")
            try await peer.call(TinyvexMethod.subscribe, ["subId": "spy", "name": "messages.list", "params": ["channel": "alice\u{0}spy"]])
            #expect(peer.notifications(TinyvexMethod.data).last?["value"] == .array([]))
            let cleared = try await peer.call(TinyvexMethod.mutation, ["requestId": "c1", "name": "messages.clear", "args": ["channel": "alice\u{0}wipe"]])
            #expect(cleared.result?["value"] == 0)
            try await peer.call(TinyvexMethod.subscribe, ["subId": "alice", "name": "messages.list", "params": ["channel": "alice"]])
            let alice = peer.notifications(TinyvexMethod.data).last { $0["subId"] == "alice" }
            #expect(alice?["value"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["private"])
            try await peer.call(TinyvexMethod.subscribe, ["subId": "other", "name": "messages.list", "params": ["channel": "alice\u{0}other"]])
            let other = peer.notifications(TinyvexMethod.data).last { $0["subId"] == "other" }
            #expect(other?["value"]?.arrayValue?.compactMap { $0["channel"]?.stringValue } == ["alice\u{0}other"])
            await peer.close()
        }
    }

    @Test("channels of odd characters are each their own: control characters, quotes, backslashes, slashes, emoji, bidi controls", arguments: StoreKind.available, [
        "\u{1}", "a\"b", "a\\b", "a/b", "🦊", "\u{202E}x", "a\nb", "\u{0}",
    ])
    func oddChannels(kind: StoreKind, _ channel: String) async throws {
        try await withDemoServer(kind) { server in
            let peer = try await RawPeer(url: server.url)
            _ = try await send(peer, "r1", channel: channel, text: "in")
            _ = try await send(peer, "r2", channel: "", text: "empty")
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": .string(channel)]])
            let value = peer.notifications(TinyvexMethod.data).last?["value"]
            #expect(value?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["in"])
            #expect(value?.arrayValue?.first?["channel"] == .string(channel))
            await peer.close()
        }
    }

    @Test("requestIds that differ only after a NUL are two mutations, each applied", arguments: StoreKind.available)
    func requestIDsAfterNUL(kind: StoreKind) async throws {
        try await withDemoServer(kind) { server in
            let peer = try await RawPeer(url: server.url)
            let first = try await send(peer, "req\u{0}one", text: "first")
            let second = try await send(peer, "req\u{0}two", text: "second")
            #expect(first.result?["value"] != second.result?["value"])
            #expect(second.result?["requestId"] == "req\u{0}two")
            try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            #expect(peer.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.count == 2)
            await peer.close()
        }
    }

    @Test("a table name with a NUL is its own table", arguments: StoreKind.available)
    func tableAfterNUL(kind: StoreKind) async throws {
        var schema = TinyvexSchema()
        struct Put: Codable { let table: String }
        struct Read: Codable { let table: String }
        schema.mutation("put") { (context, args: Put) in try context.insert(args.table, ["x": 1]) }
        schema.query("count") { (context, params: Read) in try context.all(params.table).count }
        try await withDemoServer(kind, schema: schema) { server in
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.mutation, ["requestId": "1", "name": "put", "args": ["table": "t"]])
            try await peer.call(TinyvexMethod.mutation, ["requestId": "2", "name": "put", "args": ["table": "t\u{0}x"]])
            try await peer.call(TinyvexMethod.subscribe, ["subId": "a", "name": "count", "params": ["table": "t"]])
            try await peer.call(TinyvexMethod.subscribe, ["subId": "b", "name": "count", "params": ["table": "t\u{0}y"]])
            try await peer.call(TinyvexMethod.subscribe, ["subId": "c", "name": "count", "params": ["table": "t\u{0}x"]])
            let values = Dictionary(uniqueKeysWithValues: peer.notifications(TinyvexMethod.data).compactMap { data in
                data["subId"]?.stringValue.map { ($0, data["value"]) }
            })
            #expect(values["a"] == 1)
            #expect(values["b"] == 0)
            #expect(values["c"] == 1)
            await peer.close()
        }
    }
}
