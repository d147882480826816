import Foundation
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

@Suite("Tinyvex hardening: a requestId belongs to the client that sent it", .timeLimit(.minutes(1)))
struct RequestScopeTests {
    @Test("the same requestId from two connections without a clientId is two mutations, and neither sees the other's result")
    func connectionsAreSeparate() async throws {
        try await withDemoServer { server in
            let first = try await RawPeer(url: server.url)
            let second = try await RawPeer(url: server.url)
            let mine = try await send(first, "shared-id", text: "mine")
            let theirs = try await send(second, "shared-id", text: "theirs")
            #expect(mine.result?["value"] != theirs.result?["value"])
            #expect(theirs.result?["seq"]?.int64Value ?? 0 > mine.result?["seq"]?.int64Value ?? 0)
            try await second.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
            #expect(second.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["mine", "theirs"])
            await first.close()
            await second.close()
        }
    }

    @Test("a client's clientId scopes its requestIds: its resend on a new connection is answered once, another client's same requestId is applied")
    func clientIDAcrossReconnects() async throws {
        try await withDemoServer { server in
            let before = try await RawPeer(url: server.url)
            try await before.call(TinyvexMethod.connect, ["clientId": "client-a"])
            let original = try await send(before, "r1", text: "once")
            await before.close()

            let after = try await RawPeer(url: server.url)
            try await after.call(TinyvexMethod.connect, ["clientId": "client-a"])
            #expect(try await send(after, "r1", text: "once").result == original.result)
            // A clientId in the mutation itself counts as well (a resend that overtakes connect).
            let inline = try await after.call(TinyvexMethod.mutation, [
                "requestId": "r1", "clientId": "client-a", "name": "messages.send",
                "args": ["channel": "general", "author": "ann", "text": "once"],
            ])
            #expect(inline.result == original.result)

            let other = try await RawPeer(url: server.url)
            try await other.call(TinyvexMethod.connect, ["clientId": "client-b"])
            let applied = try await send(other, "r1", text: "other")
            #expect(applied.result?["value"] != original.result?["value"])
            for peer in [after, other] { await peer.close() }
        }
    }

    @Test("requestIds, subIds and clientIds longer than maxIdentifierBytes are refused with -32602")
    func identifierLength() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxIdentifierBytes: 16)) { server in
            let peer = try await RawPeer(url: server.url)
            let long = String(repeating: "x", count: 17)
            #expect(try await send(peer, long, text: "t").errorCode == -32602)
            #expect(try await peer.call(TinyvexMethod.subscribe, ["subId": .string(long), "name": "channels.list"]).errorCode == -32602)
            #expect(try await peer.call(TinyvexMethod.connect, ["clientId": .string(long)]).errorCode == -32602)
            #expect(try await send(peer, String(repeating: "x", count: 16), text: "t").result != nil)
            await peer.close()
        }
    }

    @Test("subscription params longer than maxSubscriptionParamsBytes are refused with TVX002, so subscriptions hold bounded params")
    func paramsLength() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxSubscriptionParamsBytes: 100)) { server in
            let peer = try await RawPeer(url: server.url)
            let long = try await peer.call(TinyvexMethod.subscribe, [
                "subId": "s", "name": "messages.list", "params": ["channel": .string(String(repeating: "c", count: 100))],
            ])
            #expect(long.tinyvexCode == "TVX002")
            #expect(await server.liveQueryCount == 0)
            let short = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "c"]])
            #expect(short.result?["accepted"] == true)
            await peer.close()
        }
    }

    @Test("the stored results are bounded in bytes: past mutationResultRetentionBytes the oldest are forgotten, the newest kept")
    func resultBytesBounded() async throws {
        let configuration = TinyvexServerConfiguration(maxIdentifierBytes: 4_096, mutationResultRetentionBytes: 20_000)
        try await withDemoServer(configuration: configuration) { server in
            let peer = try await RawPeer(url: server.url)
            var answers: [JSONValue] = []
            for index in 0..<20 {
                let id = "\(index)-" + String(repeating: "k", count: 3_000)
                answers.append(try await send(peer, id, text: "m\(index)"))
                #expect(await server.engine.mutationResultBytes <= 20_000)
            }
            // The newest is still deduplicated; the oldest was forgotten and applies again.
            let newest = "19-" + String(repeating: "k", count: 3_000)
            #expect(try await send(peer, newest, text: "m19").result == answers[19].result)
            let oldest = "0-" + String(repeating: "k", count: 3_000)
            #expect(try await send(peer, oldest, text: "m0").result != answers[0].result)
            await peer.close()
        }
    }
}
