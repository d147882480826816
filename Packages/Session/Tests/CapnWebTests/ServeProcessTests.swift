import Foundation
import NIOHTTP1
import Synchronization
import Testing
import RpcTransportTesting
import CapnWeb
import CapnWebTestSupport
import RpcTransportNIO

/// `capnweb serve --demo` as a child process, beside the test bundle where the build puts it,
/// with its `READY` and `METRICS` lines read.
private final class ServeProcess: Sendable {
    let process: Process
    let webSocketURL: String
    let metricsURL: String
    /// The process's exit status, once it has exited.
    private let exited: AsyncStream<Int32>

    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("capnweb")
    }

    static var available: Bool { FileManager.default.isExecutableFile(atPath: binary.path) }

    private init(process: Process, exited: AsyncStream<Int32>, webSocketURL: String, metricsURL: String) {
        self.process = process
        self.exited = exited
        self.webSocketURL = webSocketURL
        self.metricsURL = metricsURL
    }

    /// Starts the server with a metrics endpoint, both on free ports, and reads its two lines.
    static func start() throws -> ServeProcess {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--demo", "--port", "0", "--metrics-port", "0"]
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        let (exited, exit) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        process.terminationHandler = { process in
            exit.yield(process.terminationStatus)
            exit.finish()
        }
        try process.run()
        var lines: [String: String] = [:]
        var line: [UInt8] = []
        while lines.count < 2, let byte = try output.fileHandleForReading.read(upToCount: 1)?.first {
            guard byte == 10 else {
                line.append(byte)
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            line = []
            if let space = text.firstIndex(of: " ") {
                lines[String(text[..<space])] = String(text[text.index(after: space)...])
            }
        }
        guard let ready = lines["READY"], let metrics = lines["METRICS"] else {
            process.terminate()
            throw TransportError(code: .ioError, message: "the server did not start: \(lines)")
        }
        return ServeProcess(process: process, exited: exited, webSocketURL: ready, metricsURL: metrics)
    }

    /// Waits (at most `limit`) for the process to exit; its status, or `nil` if it did not.
    func waitForExit(within limit: Duration = .seconds(30)) async -> Int32? {
        let exited = self.exited
        return try? await Deadline.race(limit) {
            await exited.first { _ in true }
        } ?? nil
    }

    /// Ends the process if it is still running (a failed test's clean-up).
    func kill() {
        if process.isRunning { process.interrupt() }
    }
}

/// Whether `text` is Prometheus' text format: comments (`# HELP`, `# TYPE`) and samples
/// `name{labels} value`, one per line.
func isPrometheusText(_ text: String) -> Bool {
    text.split(separator: "\n").allSatisfy { line in
        if line.hasPrefix("#") { return line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") }
        guard let space = line.lastIndex(of: " ") else { return false }
        let name = line[..<space].prefix { $0 != "{" }
        return !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
            && Double(line[line.index(after: space)...]) != nil
    }
}

/// GETs `url` with our HTTP client.
func httpGet(_ url: String) async throws -> HTTPClientResponse {
    guard let slash = url.dropFirst("http://".count).firstIndex(of: "/") else {
        throw TransportError(code: .invalidTarget, message: "no path in \(url)")
    }
    let client = try HTTPClient(baseURL: String(url[..<slash]))
    defer { Task { await client.close() } }
    return try await client.execute(HTTPClientRequest(method: .GET, path: String(url[slash...])))
}

@Suite("capnweb serve as a process")
struct ServeProcessTests {
    @Test(
        "SIGTERM during 100 calls in flight: every call is answered, the session closes with 1001 and the process exits 0",
        .enabled(if: ServeProcess.available, "needs the built capnweb"))
    func sigtermDuringCalls() async throws {
        let server = try ServeProcess.start()
        defer { server.kill() }
        guard let url = URL(string: server.webSocketURL) else {
            Issue.record("not a URL: \(server.webSocketURL)")
            return
        }
        try await withCheckedPeers { peers in
            let session = try await RpcSession<Any>.connect(to: url)
            peers.client(session)
            let ended = Mutex<(any Error)??>(nil)
            session.onDisconnect { error in ended.withLock { $0 = .some(error) } }
            let answers = try await withThrowingTaskGroup(of: Int.self) { calls in
                for index in 0..<100 {
                    calls.addTask {
                        let value: Int = try await session.api.delayed(500, index)
                        return value
                    }
                }
                // Answered after the server has read the 100 calls before it (one connection, in order).
                let four: Int = try await session.api.square(2)
                #expect(four == 4)
                server.process.terminate()
                var answers: Set<Int> = []
                for try await value in calls { answers.insert(value) }
                return answers
            }
            #expect(answers == Set(0..<100))
            #expect(await server.waitForExit() == 0)
            try await waitUntil("the session ended") { ended.withLock { $0 != nil } }
            #expect(closeCode(of: ended.withLock { $0 ?? nil }) == .goingAway)
        }
    }

    @Test(
        "--metrics-port serves Prometheus text at GET /metrics, and the process exits 0 on SIGINT",
        .enabled(if: ServeProcess.available, "needs the built capnweb"))
    func metricsEndpoint() async throws {
        let server = try ServeProcess.start()
        defer { server.kill() }
        let response = try await httpGet(server.metricsURL)
        #expect(response.status == 200)
        #expect(response.headers["content-type"].first == "text/plain; version=0.0.4; charset=utf-8")
        #expect(isPrometheusText(response.text ?? "-"))
        // The transport's documented metrics (observability.md), counting the scrape before.
        let again = try await httpGet(server.metricsURL)
        let text = again.text ?? ""
        #expect(isPrometheusText(text))
        for name in ["rpc_transport_bytes_received_total", "rpc_transport_bytes_sent_total"] {
            #expect(text.contains("\n\(name) ") || text.hasPrefix("\(name) ") || text.contains("\n\(name){"), "\(name) missing")
        }
        let elsewhere = try await httpGet(server.metricsURL.replacingOccurrences(of: "/metrics", with: "/other"))
        #expect(elsewhere.status == 404)
        server.process.interrupt()
        #expect(await server.waitForExit() == 0)
    }
}
