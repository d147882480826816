import Foundation

/// A copy of this executable running as a server (for example with `--serve <kind>`), whose
/// port it read from the `PORT <n>` line the server prints (see ``LoopbackServer``). It exits
/// when ``stop()`` closes its standard input (or when this process exits and the pipe closes
/// with it).
public final class ServerProcess {
    /// The port the server listens on, on 127.0.0.1.
    public let port: Int
    private let process: Process
    private let input: Pipe

    private init(port: Int, process: Process, input: Pipe) {
        self.port = port
        self.process = process
        self.input = input
    }

    /// Starts a copy of this executable with `arguments` and waits (at most 20 seconds) for the
    /// port it prints; `label` names the server in errors.
    public static func start(arguments: [String], label: String) throws -> ServerProcess {
        guard let executable = Bundle.main.executableURL else {
            throw BenchmarkFailure("cannot locate the benchmark executable to start a server copy")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()

        let reader = PortReader(handle: output.fileHandleForReading)
        guard let port = reader.port(within: 20) else {
            process.terminate()
            throw BenchmarkFailure("the \(label) server did not print its port: \(reader.text)")
        }
        return ServerProcess(port: port, process: process, input: input)
    }

    /// Closes the server's standard input and waits (at most 5 seconds) for it to exit, then
    /// terminates it.
    public func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
    }
}

/// Reads a child's standard output on a thread of its own until the `PORT <n>` line.
private final class PortReader: @unchecked Sendable {
    // Written by the reading thread before it signals `done`, read after waiting on it.
    private var collected = Data()
    private var found: Int?
    private let done = DispatchSemaphore(value: 0)

    init(handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                collected.append(data)
                let text = String(decoding: collected, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }),
                    let port = Int(line.dropFirst("PORT ".count))
                {
                    found = port
                    break
                }
            }
            done.signal()
        }
    }

    func port(within seconds: Int) -> Int? {
        guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return found
    }

    var text: String {
        String(decoding: collected, as: UTF8.self)
    }
}
