import Foundation
import GRDB
import RpcWire
import Synchronization
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// A file database for one test, removed after it.
private func withDatabaseFile<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-\(UUID().uuidString).sqlite").path
    defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    return try await body(path)
}

/// Writes `version` into a store file as a damaged or hostile file would hold it.
private func poison(_ path: String, version: any DatabaseValueConvertible) throws {
    let store = try DocumentStore(.file(path))
    try store.writer.write { db in
        try db.execute(sql: "UPDATE tinyvex_meta SET value = ? WHERE key = 'version'", arguments: [version])
    }
}

/// The log lines a server writes.
private final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
    var configuration: TinyvexServerConfiguration {
        TinyvexServerConfiguration(log: { line in self.lines.withLock { $0.append(line) } })
    }
}

@Suite("Tinyvex hardening: no number from a client or a store traps the server", .timeLimit(.minutes(1)))
struct StoreSafetyTests {
    @Test("a lastSeq of Int64.max gets TVX004 and the current value; the server's version does not move and the next mutation is the next seq")
    func lastSeqAtTheTop() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            let first = try await send(peer, "r1", text: "one")
            let seq = try #require(first.result?["seq"]?.int64Value)
            let answer = try await peer.call(TinyvexMethod.subscribe, [
                "subId": "s", "name": "messages.list", "params": ["channel": "general"], "lastSeq": .integer(Int64.max),
            ])
            #expect(answer.result?["resumed"] == false)
            #expect(answer.result?["seq"] == .integer(seq))
            #expect(peer.notifications(TinyvexMethod.error).first?["code"] == "TVX004")
            #expect(peer.notifications(TinyvexMethod.data).first?["seq"] == .integer(seq))
            #expect(await server.engine.currentVersion == seq)
            let next = try await send(peer, "r2", text: "two")
            #expect(next.result?["seq"] == .integer(seq + 1))
            #expect(try await peer.call(TinyvexMethod.ping, ["t": 1]).result == ["t": 1])
            await peer.close()
        }
    }

    @Test("a negative lastSeq is refused with -32602")
    func negativeLastSeq() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            let answer = try await peer.call(TinyvexMethod.subscribe, [
                "subId": "s", "name": "messages.list", "params": ["channel": "general"], "lastSeq": .integer(Int64.min),
            ])
            #expect(answer.errorCode == -32602)
            await peer.close()
        }
    }

    @Test(
        "a store whose version cannot be used is logged; queries still answer and mutations fail with TVX003 storeVersionUnusable",
        arguments: [Int64.max, -5] as [Int64])
    func poisonedVersion(_ version: Int64) async throws {
        try await withDatabaseFile { path in
            try poison(path, version: version)
            let log = LogLines()
            try await TinyvexServer.withServer(
                schema: TinyvexDemoSchema.schema(), database: .file(path), configuration: log.configuration, port: 0
            ) { server in
                #expect(log.lines.withLock { $0 }.contains { $0.contains("\(version)") && $0.contains("mutations are refused") })
                let peer = try await RawPeer(url: server.url)
                let subscribed = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "messages.list", "params": ["channel": "general"]])
                #expect(subscribed.result?["accepted"] == true)
                #expect(peer.notifications(TinyvexMethod.data).first?["value"] == .array([]))
                let refused = try await send(peer, "r1", text: "never")
                #expect(refused.tinyvexCode == "TVX003")
                #expect(refused["error"]?["data"]?["details"]?["reason"] == "storeVersionUnusable")
                #expect(try await peer.call(TinyvexMethod.ping, ["t": 2]).result == ["t": 2])
                await peer.close()
            }
            // Nothing was stored over the bad value, and the next start says so again.
            #expect(try DocumentStore(.file(path)).version() != .usable(0))
        }
    }

    @Test("a version that is not an integer is refused at start-up like an out-of-range one")
    func textVersion() async throws {
        try await withDatabaseFile { path in
            try poison(path, version: "lots")
            let log = LogLines()
            try await TinyvexServer.withServer(
                schema: TinyvexDemoSchema.schema(), database: .file(path), configuration: log.configuration, port: 0
            ) { server in
                #expect(log.lines.withLock { $0 }.count == 1)
                let peer = try await RawPeer(url: server.url)
                #expect(try await send(peer, "r1", text: "never").tinyvexCode == "TVX003")
                await peer.close()
            }
        }
    }

    @Test("a stored mutation result that cannot be read back (a damaged row) answers its resend with TVX003 instead of trapping")
    func damagedStoredResult() async throws {
        try await withDatabaseFile { path in
            let store = try DocumentStore(.file(path))
            let key = try DocumentStore.resultKey(scope: "client:c", requestID: "r")
            try await store.writer.write { db in
                try db.execute(sql: "INSERT INTO tinyvex_requests(request_id, result, version) VALUES (?, '1', 'bad')", arguments: [key])
            }
            try await TinyvexServer.withServer(schema: TinyvexDemoSchema.schema(), database: .file(path), port: 0) { server in
                let peer = try await RawPeer(url: server.url)
                try await peer.call(TinyvexMethod.connect, ["clientId": "c"])
                #expect(try await send(peer, "r", text: "resent").tinyvexCode == "TVX003")
                #expect(try await send(peer, "other", text: "fresh").result?["seq"] == 1)
                await peer.close()
            }
        }
    }

    @Test("at the largest version a mutation fails with TVX003 versionExhausted and nothing is stored past it")
    func versionExhausted() async throws {
        try await withDatabaseFile { path in
            try poison(path, version: DocumentStore.maxVersion)
            try await TinyvexServer.withServer(schema: TinyvexDemoSchema.schema(), database: .file(path), port: 0) { server in
                let peer = try await RawPeer(url: server.url)
                let refused = try await send(peer, "r1", text: "never")
                #expect(refused["error"]?["data"]?["details"]?["reason"] == "versionExhausted")
                await peer.close()
            }
            #expect(try DocumentStore(.file(path)).version() == .usable(DocumentStore.maxVersion))
        }
        #expect(throws: TinyvexServerError.self) {
            let store = try DocumentStore(.inMemory)
            try store.writer.write { db in try DocumentStore.setVersion(Int64.max, db) }
        }
    }

    @Test("the demo refuses arguments out of range with TVX003 instead of trapping: delayMs at Int64.max or negative, an overlong text")
    func demoArguments() async throws {
        try await withDemoServer { server in
            let peer = try await RawPeer(url: server.url)
            for delay in [Int64.max, -1] {
                let answer = try await peer.call(TinyvexMethod.action, [
                    "requestId": "a", "name": "messages.sendLater",
                    "args": ["channel": "general", "author": "x", "text": "t", "delayMs": .integer(delay)],
                ])
                #expect(answer.tinyvexCode == "TVX003")
                #expect(answer["error"]?["data"]?["details"]?["field"] == "delayMs")
            }
            let long = String(repeating: "x", count: TinyvexDemoSchema.maxTextBytes + 1)
            let answer = try await send(peer, "r1", text: long)
            #expect(answer.tinyvexCode == "TVX003")
            #expect(try await peer.call(TinyvexMethod.ping, ["t": 3]).result == ["t": 3])
            await peer.close()
        }
    }
}
