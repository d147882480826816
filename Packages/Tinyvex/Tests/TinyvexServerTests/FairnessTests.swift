import Foundation
import RpcWire
import Synchronization
import Testing
import TinyvexProtocol
@testable import TinyvexServer

@Suite("Tinyvex hardening: watchers converge, and a hot query does not starve the rest", .timeLimit(.minutes(2)))
struct FairnessTests {
    @Test("a slow reader during a flood of updates ends with the newest value, having been sent fewer values than there were updates")
    func slowReaderConverges() async throws {
        try await withDemoServer { server in
            let watcher = InMemoryPeer(serving: server, reading: .slowly(.milliseconds(5)))
            _ = try await watcher.call(TinyvexMethod.subscribe, ["subId": "w", "name": "messages.list", "params": ["channel": "general"]])
            let writer = try await RawPeer(url: server.url)
            for index in 0..<300 {
                _ = try await send(writer, "r\(index)", text: "message \(index)")
            }
            let last = try await watcher.waitFor("the newest value") { _ in
                watcher.notifications(TinyvexMethod.data).last { $0["value"]?.arrayValue?.count == 300 }
            }
            #expect(last["value"]?.arrayValue?.last?["text"] == "message 299")
            #expect(watcher.notifications(TinyvexMethod.data).count < 300)
            await writer.close()
            await watcher.close()
        }
    }

    @Test("a costly live query runs once per pass, not once per mutation, and its watcher still ends with the newest value")
    func costlyQueryCoalesced() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct None: Codable {}
        schema.query("costly") { (context, _: None) -> Int in
            let count = try context.all("messages").count
            let until = ContinuousClock.now + .milliseconds(30)
            while ContinuousClock.now < until {}
            return count
        }
        try await withDemoServer(schema: schema) { server in
            let watcher = InMemoryPeer(serving: server)
            _ = try await watcher.call(TinyvexMethod.subscribe, ["subId": "c", "name": "costly"])
            let before = await server.evaluationCount
            let writer = InMemoryPeer(serving: server)
            // Sent back to back: the engine has them all waiting while the costly query runs.
            for index in 0..<60 {
                try writer.request(TinyvexMethod.mutation, [
                    "requestId": .string("r\(index)"), "name": "messages.send", "args": ["channel": "general", "author": "a", "text": "m"],
                ])
            }
            _ = try await writer.waitFor("every answer") { messages in messages.count { $0["id"] != nil } >= 60 ? true : nil }
            _ = try await watcher.waitFor("the newest count") { _ in
                watcher.notifications(TinyvexMethod.data).last { $0["value"] == 60 }
            }
            #expect(await server.evaluationCount - before < 40)
            await writer.close()
            await watcher.close()
        }
    }

    @Test("while many watchers do not read, mutations, pings and another subscription are answered")
    func othersStillServed() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(maxSendQueueBytes: 64 << 20, maxChunkBytes: 4 << 20)) { server in
            var stalled: [InMemoryPeer] = []
            for _ in 0..<20 {
                let peer = InMemoryPeer(serving: server)
                _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "w", "name": "messages.list", "params": ["channel": "general"]])
                peer.setReading(.paused)
                stalled.append(peer)
            }
            let healthy = try await RawPeer(url: server.url)
            try await healthy.call(TinyvexMethod.subscribe, ["subId": "o", "name": "messages.list", "params": ["channel": "other"]])
            let writer = try await RawPeer(url: server.url)
            for index in 0..<200 {
                #expect(try await send(writer, "r\(index)", text: String(repeating: "y", count: 1_000)).result != nil)
            }
            _ = try await send(writer, "other", channel: "other", text: "seen")
            #expect(try await healthy.call(TinyvexMethod.ping, ["t": 9]).result == ["t": 9])
            _ = try await healthy.waitFor("the other channel's update") { _ in
                healthy.notifications(TinyvexMethod.data).last { $0["value"]?.arrayValue?.count == 1 }
            }
            for (index, peer) in stalled.enumerated() {
                peer.setReading(.freely)
                _ = try await peer.waitFor("the newest value of stalled watcher \(index)") { _ in
                    peer.notifications(TinyvexMethod.data).last { $0["value"]?.arrayValue?.count == 200 }
                }
                await peer.close()
            }
            await healthy.close()
            await writer.close()
        }
    }
}
