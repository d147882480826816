import Foundation
import RpcDoTesting
import RpcTransport
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

@Suite("Tinyvex hardening: every queue a client can fill has a bound", .timeLimit(.minutes(2)))
struct BudgetTests {
    @Test("requests whose answers go unread stop being handled: the send queue never holds more than maxSendQueue items, and every request is answered once the client reads")
    func unreadAnswers() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxSendQueue: 50)) { server in
            let peer = InMemoryPeer(serving: server, reading: .paused)
            for index in 0..<2_000 {
                try peer.request(TinyvexMethod.unsubscribe, ["subId": .string("nothing\(index)")])
            }
            try await waitUntil("the queue fills") { server.sendQueuePeak.items >= 50 }
            peer.setReading(.freely)
            _ = try await peer.waitFor("every answer") { messages in messages.count { $0["id"] != nil } >= 2_000 ? true : nil }
            #expect(server.sendQueuePeak.items <= 52)
            await peer.close()
        }
    }

    @Test("a client that closes while its answers wait unread and its requests are held ends its connection: the handler returns")
    func closeWhilePaused() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxSendQueue: 50)) { server in
            let peer = InMemoryPeer(serving: server, reading: .paused)
            for index in 0..<200 {
                try peer.request(TinyvexMethod.unsubscribe, ["subId": .string("nothing\(index)")])
            }
            try await waitUntil("the queue fills") { server.sendQueuePeak.items >= 50 }
            await peer.closeWithoutReading()
            try await waitUntil("the connection's handler returns", timeout: .seconds(10)) { peer.served }
        }
    }

    @Test("past maxInboundBacklogBytes of requests waiting to be handled the connection is closed with 1008")
    func inboundBacklog() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct None: Codable {}
        schema.mutation("slow") { (_, _: None) -> Int in
            let until = ContinuousClock.now + .milliseconds(300)
            while ContinuousClock.now < until {}
            return 1
        }
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxInboundBacklogBytes: 10_000), schema: schema) { server in
            let peer = InMemoryPeer(serving: server)
            try peer.request(TinyvexMethod.mutation, ["requestId": "s", "name": "slow"])
            for index in 0..<100 {
                try peer.request(TinyvexMethod.unsubscribe, ["subId": .string(String(repeating: "x", count: 150) + "\(index)")])
            }
            try await waitUntil("the connection is closed") { peer.ended != nil }
            #expect(peer.ended?.code == .policyViolation)
            #expect(peer.ended?.reason.contains("maxInboundBacklogBytes") == true)
            await peer.close()
        }
    }

    @Test("many subscriptions of one connection to a large value that is never read hold the value once")
    func sharedLargeValue() async throws {
        let configuration = TinyvexServerConfiguration(maxSendQueue: 100_000, maxChunkBytes: 4 << 20)
        try await withDemoServer(configuration: configuration) { server in
            let writer = try await RawPeer(url: server.url)
            let chunk = String(repeating: "x", count: 60_000)
            for index in 0..<17 {
                _ = try await send(writer, "big\(index)", channel: "big", text: chunk)
            }
            let peer = InMemoryPeer(serving: server, reading: .paused)
            for index in 0..<100 {
                try peer.request(TinyvexMethod.subscribe, ["subId": .string("s\(index)"), "name": "messages.list", "params": ["channel": "big"]])
            }
            try await waitUntil("every subscription is queued") { server.sendQueuePeak.items >= 199 }
            // About 1 MB once, not 100 copies of it.
            #expect(server.sendQueuePeak.bytes < 2 << 20)
            peer.setReading(.freely)
            _ = try await peer.waitFor("every answer") { messages in messages.count { $0["id"] != nil } >= 100 ? true : nil }
            #expect(peer.notifications(TinyvexMethod.data).count == 100)
            await peer.close()
            await writer.close()
        }
    }

    @Test("past maxSendQueueBytes the connection is closed with 1008 instead of holding more")
    func closesPastTheLimit() async throws {
        let configuration = TinyvexServerConfiguration(maxSendQueue: 1_000_000, sendQueuePauseBytes: 64 << 10, maxSendQueueBytes: 200 << 10)
        try await withDemoServer(configuration: configuration) { server in
            let peer = InMemoryPeer(serving: server, reading: .paused)
            // One message holding 6,000 pings: their answers pass the limit before reading can pause.
            let batch = (0..<6_000).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"tinyvex/ping","params":{"t":\#($0)}}"# }
            peer.sendText("[" + batch.joined(separator: ",") + "]")
            try await waitUntil("the connection is closed") { peer.ended != nil }
            #expect(peer.ended?.code == .policyViolation)
            #expect(peer.ended?.reason.contains("maxSendQueueBytes") == true)
            #expect(server.sendQueuePeak.bytes <= (200 << 10) + 1_024)
            await peer.close()
        }
    }

    @Test("actions past maxPendingActionsPerConnection are refused with TVX003 tooManyActions; the connection keeps working")
    func pendingActions() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxPendingActionsPerConnection: 5)) { server in
            let peer = InMemoryPeer(serving: server)
            var ids: [JSONValue] = []
            for index in 0..<8 {
                ids.append(try peer.request(TinyvexMethod.action, [
                    "requestId": .string("a\(index)"), "name": "messages.sendLater",
                    "args": ["channel": "general", "author": "x", "text": "later", "delayMs": 60_000],
                ]))
            }
            let refused = try await peer.waitFor("three refusals") { messages -> [JSONValue]? in
                let refusals = messages.filter { $0["error"]?["data"]?["details"]?["reason"] == "tooManyActions" }
                return refusals.count >= 3 ? refusals : nil
            }
            #expect(Set(refused.compactMap { $0["id"] }) == Set(ids.suffix(3)))
            #expect(refused.allSatisfy { $0.tinyvexCode == "TVX003" })
            #expect(try await peer.call(TinyvexMethod.ping, ["t": 1]).result == ["t": 1])
            await peer.close()
        }
    }
}
