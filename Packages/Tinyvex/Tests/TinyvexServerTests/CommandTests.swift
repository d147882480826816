import Foundation
import RpcDoTesting
import RpcWire
import Testing
import TinyvexProtocol

@Suite("The tinyvex command", .timeLimit(.minutes(1)))
struct CommandTests {
    @Test(
        "serve --demo --port 0 with --db FILE or --postgres URL prints READY <ws-url> and serves the demo chat schema to a client of the documented protocol",
        arguments: StoreKind.available)
    func serveDemo(kind: StoreKind) async throws {
        #expect(CommandProcess.isBuilt("tinyvex"), "build the tinyvex product first")
        try await kind.withStore { location in
            let store: [String] = switch location {
            case .sqlite(let path): ["--db", path]
            case .postgres(let url): ["--postgres", url]
            }
            let server = try await Self.serve(store)
            defer { server.kill() }
            try await Self.exercise(server.announcement("READY") ?? "-")
            await Self.stop(server)
        }
    }

    @Test(
        "two serve --demo --postgres processes given one URL form a cluster: a subscriber on one sees a mutation sent to the other",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func serveCluster() async throws {
        try await PostgresTestDatabase.with { url in
            var processes: [CommandProcess] = []
            defer { for process in processes { process.kill() } }
            for _ in 0..<2 {
                processes.append(try await Self.serve(["--postgres", url]))
            }
            let urls = processes.map { $0.announcement("READY") ?? "-" }
            let subscriber = try await RawPeer(url: urls[1])
            try await subscriber.call(TinyvexMethod.subscribe, ["subId": "m", "name": "messages.list", "params": ["channel": "general"]])
            let sender = try await RawPeer(url: urls[0])
            _ = try await send(sender, "r1", text: "across")
            try await waitUntil("the other server to show the message") {
                subscriber.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.first?["text"] == "across"
            }
            await sender.close()
            await subscriber.close()
            for process in processes { await Self.stop(process) }
        }
    }

    /// Starts `tinyvex serve --demo` on a free port of 127.0.0.1 with `arguments` added, and
    /// returns it once it has printed its READY line with a WebSocket URL of that address.
    static func serve(_ arguments: [String]) async throws -> CommandProcess {
        let server = try await CommandProcess.start(
            "tinyvex", ["serve", "--demo", "--host", "127.0.0.1", "--port", "0"] + arguments, announcing: ["READY"],
            within: .seconds(15))
        let url = server.announcement("READY") ?? "-"
        guard url.hasPrefix("ws://127.0.0.1:") else {
            server.kill()
            throw CommandProcess.Failure(description: "the command printed READY \(url)")
        }
        return server
    }

    /// Talks to the server at `url` as a client of the documented protocol.
    private static func exercise(_ url: String) async throws {
        let peer = try await RawPeer(url: url)
        try await peer.call(TinyvexMethod.subscribe, ["subId": "m", "name": "messages.list", "params": ["channel": "general"]])
        try await peer.call(TinyvexMethod.subscribe, ["subId": "c", "name": "channels.list", "params": [:]])
        let sent = try await peer.call(TinyvexMethod.mutation, [
            "requestId": "r1", "name": "messages.send", "args": ["channel": "general", "author": "ann", "text": "hi"],
        ])
        let id = try #require(sent.result?["value"]?.int64Value)
        let messages = peer.notifications(TinyvexMethod.data).filter { $0["subId"] == "m" }.last
        #expect(messages?["value"] == [["id": .integer(id), "channel": "general", "author": "ann", "text": "hi"]])
        #expect(peer.notifications(TinyvexMethod.data).filter { $0["subId"] == "c" }.last?["value"] == ["general"])
        let later = try await peer.call(TinyvexMethod.action, [
            "requestId": "a1", "name": "messages.sendLater", "args": ["channel": "general", "author": "bob", "text": "later", "delayMs": 10],
        ])
        #expect(later.result?["value"]?.int64Value ?? 0 > id)
        let cleared = try await peer.call(TinyvexMethod.mutation, ["requestId": "r2", "name": "messages.clear", "args": ["channel": "general"]])
        #expect(cleared.result?["value"] == 2)
        #expect(peer.notifications(TinyvexMethod.data).filter { $0["subId"] == "m" }.last?["value"] == .array([]))
        await peer.close()
    }

    /// Ends the command (SIGTERM) and waits for it to exit.
    private static func stop(_ server: CommandProcess) async {
        server.terminate()
        _ = await server.waitForExit()
    }
}
