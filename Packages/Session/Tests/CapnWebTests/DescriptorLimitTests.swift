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

/// `capnweb serve` run as a child process under a descriptor limit (`prlimit`), beside the test
/// bundle where the build puts it.
private struct LimitedServer {
    let process: Process
    let port: Int

    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("capnweb")
    }

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: binary.path)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")
    }

    /// Starts the server with at most `descriptors` open files and waits for its READY line.
    static func start(descriptors: Int) throws -> LimitedServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--nofile=\(descriptors)", binary.path, "serve", "--demo", "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 {
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY ws://127.0.0.1:"),
            let port = Int(text.dropFirst("READY ws://127.0.0.1:".count).prefix { $0.isNumber })
        else {
            process.terminate()
            throw TransportError(code: .ioError, message: "the server did not start: \(text)")
        }
        return LimitedServer(process: process, port: port)
    }

    /// The CPU time the process has used, in seconds.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
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
        let server = try LimitedServer.start(descriptors: 64)
        defer { server.process.terminate() }
        // 200 connections: the kernel completes them all (the backlog is 256), the server can
        // accept only as many as its descriptors allow.
        var sockets: [Int32] = []
        for _ in 0..<200 {
            sockets.append(try connectedSocket(port: server.port))
        }
        // Spinning on failed accepts costs a whole core; pausing costs next to nothing.
        let before = server.cpuSeconds
        try await Task.sleep(for: .seconds(2))
        let used = server.cpuSeconds - before
        #expect(used < 0.5, "the server used \(used) s of CPU in 2 s at its descriptor limit")
        for fd in sockets { close(fd) }
        // Once descriptors are free it accepts again: a session answers.
        let url = try #require(URL(string: "ws://127.0.0.1:\(server.port)/"))
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
