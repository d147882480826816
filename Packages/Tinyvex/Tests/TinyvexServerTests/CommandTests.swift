import Foundation
import RpcTesting
import RpcWire
import Testing
import TinyvexProtocol

@Suite("The tinyvex command", .timeLimit(.minutes(1)))
struct CommandTests {
    /// `tinyvex`, beside the test bundle where the build puts it.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tinyvex")
    }

    @Test(
        "serve --demo --port 0 with --db FILE or --postgres URL prints READY <ws-url> and serves the demo chat schema to a client of the documented protocol",
        arguments: StoreKind.available)
    func serveDemo(kind: StoreKind) async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the tinyvex product first")
        try await kind.withStore { location in
            let store: [String] = switch location {
            case .sqlite(let path): ["--db", path]
            case .postgres(let url): ["--postgres", url]
            }
            var started: Process?
            do {
                let (process, url) = try await Self.serve(store) { started = $0 }
                try await Self.exercise(url)
                await Self.stop(process)
            } catch {
                if let started { await Self.stop(started) }
                throw error
            }
        }
    }

    @Test(
        "two serve --demo --postgres processes given one URL form a cluster: a subscriber on one sees a mutation sent to the other",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func serveCluster() async throws {
        try await PostgresTestDatabase.with { url in
            var processes: [Process] = []
            do {
                var urls: [String] = []
                for _ in 0..<2 {
                    urls.append(try await Self.serve(["--postgres", url]) { processes.append($0) }.1)
                }
                let subscriber = try await RawPeer(url: urls[1])
                try await subscriber.call(TinyvexMethod.subscribe, ["subId": "m", "name": "messages.list", "params": ["channel": "general"]])
                let sender = try await RawPeer(url: urls[0])
                _ = try await send(sender, "r1", text: "across")
                try await waitUntil("the other server to show the message") {
                    subscriber.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.first?["text"] == "across"
                }
                await sender.close()
                await subscriber.close()
            } catch {
                for process in processes { await Self.stop(process) }
                throw error
            }
            for process in processes { await Self.stop(process) }
        }
    }

    /// Starts `tinyvex serve --demo` on a free port of 127.0.0.1 with `arguments` added, hands
    /// the process to `started` at once (so a caller can stop it whatever happens next), and
    /// returns it with the URL of its READY line.
    static func serve(_ arguments: [String], started: (Process) -> Void = { _ in }) async throws -> (Process, String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--demo", "--host", "127.0.0.1", "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        started(process)
        return (process, try await readyURL(process, output: output))
    }

    /// Reads the command's READY line and returns the URL it names.
    private static func readyURL(_ process: Process, output: Pipe) async throws -> String {
        let watchdog = Task {
            try await Task.sleep(for: .seconds(15))
            process.terminate()
        }
        defer { watchdog.cancel() }
        let handle = output.fileHandleForReading
        let line = try await onOwnThread { () throws -> [UInt8] in
            var line: [UInt8] = []
            while let byte = try handle.read(upToCount: 1)?.first, byte != 10 {
                line.append(byte)
            }
            return line
        }
        let text = String(decoding: line, as: UTF8.self)
        try #require(text.hasPrefix("READY ws://127.0.0.1:"), "the command printed \(text)")
        return String(text.dropFirst("READY ".count))
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

    /// Ends the command and waits for it to exit, on a thread of its own (the wait blocks).
    private static func stop(_ process: Process) async {
        process.terminate()
        _ = try? await onOwnThread { process.waitUntilExit() }
    }
}

/// Runs blocking `body` on a thread of its own and returns what it returns: on the cooperative
/// pool, which has one thread per core, it would hold a thread the server under test needs.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
