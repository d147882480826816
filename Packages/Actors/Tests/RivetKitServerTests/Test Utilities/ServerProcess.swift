import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's `kill`, which the method below would hide.
private func systemKill(_ process: pid_t, _ signal: Int32) -> Int32 {
    kill(process, signal)
}

/// A `rivetkit serve` process (the command built beside the tests), started with some
/// arguments and stopped with a signal: what a test needs to kill a node for real.
final class ServerProcess: Sendable {
    struct Failed: Error, CustomStringConvertible { var description: String }

    private let process: Process
    private let output = Mutex<[UInt8]>([])
    /// The endpoint the server printed (`READY <endpoint>`).
    let endpoint: String

    private init(process: Process, endpoint: String) {
        self.process = process
        self.endpoint = endpoint
    }

    /// The `rivetkit` command beside the test bundle, when it was built.
    static var command: URL? {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidate = directory.appendingPathComponent("rivetkit")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    /// Starts `rivetkit serve` with `arguments` and waits (up to 30 s) for its `READY` line.
    static func start(_ arguments: [String]) async throws -> ServerProcess {
        guard let command else { throw Failed(description: "the rivetkit command was not built beside the tests") }
        let process = Process()
        process.executableURL = command
        process.arguments = ["serve"] + arguments
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let lines = Mutex<[UInt8]>([])
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            lines.withLock { $0 += chunk }
        }
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = lines.withLock { String(decoding: $0, as: UTF8.self) }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("READY ") }) {
                return ServerProcess(process: process, endpoint: String(line.dropFirst("READY ".count)))
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        throw Failed(description: "rivetkit serve did not print READY: \(lines.withLock { String(decoding: $0, as: UTF8.self) })")
    }

    /// Kills the process at once (SIGKILL), as a crash would.
    func kill() {
        if process.isRunning { _ = systemKill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Stops the process gracefully (SIGTERM) and waits for it.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
