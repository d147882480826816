import Foundation
import Testing
import CapnWebTestSupport
import RpcTransportTesting
import CapnWeb

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `capnweb serve` run as a child process under a descriptor limit (`prlimit`).
private enum LimitedServer {
    static var available: Bool {
        CommandProcess.isBuilt("capnweb") && FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")
    }

    /// Starts the server with at most `descriptors` open files; it and its port once it has
    /// printed its READY line.
    static func start(descriptors: Int) async throws -> (server: CommandProcess, port: Int) {
        let server = try await CommandProcess.start(
            "capnweb", ["serve", "--demo", "--port", "0"], announcing: ["READY"],
            launcher: ["/usr/bin/prlimit", "--nofile=\(descriptors)"])
        let url = server.announcement("READY") ?? "-"
        guard url.hasPrefix("ws://127.0.0.1:"), let port = Int(url.dropFirst("ws://127.0.0.1:".count).prefix { $0.isNumber }) else {
            server.kill()
            throw TransportError(code: .ioError, message: "the server did not start: \(url)")
        }
        return (server, port)
    }

    /// The CPU time the process `id` has used, in seconds.
    static func cpuSeconds(_ id: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8)
        else { return 0 }
        // Fields after the command name, which is in parentheses: utime and stime are 14 and 15.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

@Suite("A server at its descriptor limit")
struct DescriptorLimitTests {
    @Test(
        "a server out of descriptors pauses accepting instead of spinning, and accepts again once they are free",
        .enabled(if: LimitedServer.available, "needs the built capnweb and prlimit"),
        .timeLimit(.minutes(1)))
    func acceptBacksOff() async throws {
        let (server, port) = try await LimitedServer.start(descriptors: 64)
        defer { server.kill() }
        // 200 connections: the kernel completes them all (the backlog is 256), the server can
        // accept only as many as its descriptors allow.
        var sockets: [Int32] = []
        for _ in 0..<200 {
            sockets.append(try connectedSocket(port: port))
        }
        // Spinning on failed accepts costs a whole core; pausing costs next to nothing.
        let before = LimitedServer.cpuSeconds(server.processIdentifier)
        try await Task.sleep(for: .seconds(2))
        let used = LimitedServer.cpuSeconds(server.processIdentifier) - before
        #expect(used < 0.5, "the server used \(used) s of CPU in 2 s at its descriptor limit")
        for fd in sockets { close(fd) }
        // Once descriptors are free it accepts again: a session answers.
        let url = try #require(URL(string: "ws://127.0.0.1:\(port)/"))
        // The server runs in another process: only the client's tables can be checked.
        let answer = try await withCheckedPeers { peers in
            let session = try await RpcSession<Any>.connect(to: url)
            peers.client(session)
            let n: Double = try await session.api.square(7)
            return n
        }
        #expect(answer == 49)
    }
}
