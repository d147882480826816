public import Foundation
import RpcTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's `kill`, which ``CommandProcess/kill()`` would hide.
private func sendSignal(_ process: pid_t, _ signal: Int32) {
    _ = kill(process, signal)
}

/// One of the repository's commands (`capnweb`, `rivetkit`, `tinyvex`) run as a child process by
/// a test: the executable the build put beside the test bundle, started with some arguments,
/// read until it has announced what the test needs (`READY <url>`, `METRICS <url>`), then
/// signalled and awaited.
///
/// Waiting never polls and never blocks a thread of the cooperative pool: the announcements
/// arrive on a stream fed by the output pipe's reader (a thread of its own per pipe), and the
/// exit status on a stream fed by the process's termination handler, each read under a deadline.
///
/// ```swift
/// let server = try await CommandProcess.start("tinyvex", ["serve", "--demo", "--port", "0"], announcing: ["READY"])
/// defer { server.kill() }
/// let url = server.announcement("READY")
/// server.terminate()
/// #expect(await server.waitForExit() == 0)
/// ```
public final class CommandProcess: Sendable {
    /// The command could not be started, or did not announce itself in time.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong, with what the command printed.
        public var description: String

        /// Creates the failure `description` tells.
        public init(description: String) {
            self.description = description
        }
    }

    /// The command's name (`rivetkit`).
    public let name: String
    /// The process's identifier.
    public let processIdentifier: Int32
    /// The rest of each announced line, by its first word (`"READY"`: `"ws://127.0.0.1:1234"`).
    public let announcements: [String: String]

    private let process: Process
    private let child: ChildState

    /// How much of the command's standard error is kept for failure messages: the last 16 KiB.
    public static let keptErrorOutput = 16 * 1024

    private init(name: String, process: Process, announcements: [String: String], child: ChildState) {
        self.name = name
        self.process = process
        self.processIdentifier = process.processIdentifier
        self.announcements = announcements
        self.child = child
    }

    /// The executable `name` where the build puts it: beside the test bundle (SwiftPM builds a
    /// root package's executables with its tests, `swift build --build-tests`).
    public static func executable(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Whether the executable `name` was built beside the test bundle (for `.enabled(if:)`).
    public static func isBuilt(_ name: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: executable(name).path)
    }

    /// Starts the command `name` with `arguments` and waits, at most `limit`, until it has
    /// printed a line starting with each of `words` on its standard output.
    ///
    /// - Parameters:
    ///   - name: The executable beside the test bundle (see ``executable(_:)``).
    ///   - arguments: Its arguments.
    ///   - words: The first words of the lines to wait for (`["READY", "METRICS"]`).
    ///   - limit: How long the command may take to print them.
    ///   - launcher: A program that runs the command in the same process after setting it up,
    ///     and its arguments (`["/usr/bin/prlimit", "--nofile=64"]`); none by default.
    /// - Returns: The running command, with its ``announcements``.
    /// - Throws: ``Failure`` when the command is missing, cannot start, exits, or does not
    ///   print the lines in time (it is killed then).
    public static func start(
        _ name: String, _ arguments: [String], announcing words: Set<String>, within limit: Duration = .seconds(30),
        launcher: [String] = []
    ) async throws -> CommandProcess {
        guard isBuilt(name) else { throw Failure(description: "\(name) was not built beside the test bundle") }
        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [executable(name).path] + arguments
        } else {
            process.executableURL = executable(name)
            process.arguments = arguments
        }
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors

        let child = ChildState()
        process.terminationHandler = { process in child.exited(process.terminationStatus) }
        let (lines, line) = AsyncStream.makeStream(of: String.self)
        // The pipes are read to their end, announced or not, so the command never blocks writing.
        // Each is read by blocking reads on a thread of its own: a `readabilityHandler` would
        // register the descriptor with libdispatch, whose teardown of it can race the pipe's close
        // and crash the test process on Linux.
        drain(output.fileHandleForReading, named: "\(name) output") { chunk in
            if let chunk {
                for text in child.lines(after: chunk) { line.yield(text) }
            } else {
                line.finish()
            }
        }
        drain(errors.fileHandleForReading, named: "\(name) errors") { chunk in
            if let chunk { child.keepError(chunk, limit: keptErrorOutput) }
        }
        do {
            try process.run()
        } catch {
            throw Failure(description: "\(name) could not start: \(error)")
        }
        let announced = try await Deadline.race(limit) { () -> [String: String] in
            var found: [String: String] = [:]
            for await text in lines {
                let word = String(text.prefix { $0 != " " })
                guard words.contains(word) else { continue }
                found[word] = String(text.dropFirst(word.count + 1))
                if found.count == words.count { break }
            }
            return found
        }
        let command = CommandProcess(
            name: name, process: process, announcements: announced ?? [:], child: child)
        guard let announced, announced.count == words.count else {
            command.kill()
            _ = await command.waitForExit(within: .seconds(5))
            throw Failure(
                description: "\(name) did not announce \(words.sorted()) within \(limit) (it printed \(announced ?? [:]));"
                    + " standard error: \(command.standardError)")
        }
        return command
    }

    /// Reads `handle` on a thread of its own until its end, handing `chunk` each piece read and
    /// then `nil`.
    private static func drain(
        _ handle: FileHandle, named label: String, _ chunk: @escaping @Sendable (Data?) -> Void
    ) {
        let descriptor = handle.fileDescriptor
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    chunk(Data(buffer[..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            // The handle closes the descriptor when it goes, so it is kept until the end is read.
            withExtendedLifetime(handle) { chunk(nil) }
        }
        reader.name = label
        reader.start()
    }

    /// The rest of the announced line starting with `word`.
    public func announcement(_ word: String) -> String? { announcements[word] }

    /// The last ``keptErrorOutput`` bytes the command wrote to its standard error.
    public var standardError: String { child.errorText }

    /// Whether the process is still running.
    public var isRunning: Bool { child.status == nil }

    /// Sends `SIGTERM`.
    public func terminate() {
        if isRunning { sendSignal(processIdentifier, SIGTERM) }
    }

    /// Sends `SIGINT`.
    public func interrupt() {
        if isRunning { sendSignal(processIdentifier, SIGINT) }
    }

    /// Sends `SIGKILL`, as a crash would; also a failed test's clean-up.
    public func kill() {
        if isRunning { sendSignal(processIdentifier, SIGKILL) }
    }

    /// Waits, at most `limit`, for the process to exit.
    ///
    /// - Returns: Its exit status (for a process ended by a signal, the signal's number), or
    ///   `nil` if it is still running.
    public func waitForExit(within limit: Duration = .seconds(30)) async -> Int32? {
        let (exited, token) = child.waiter()
        defer { child.remove(token) }
        let awaited = try? await Deadline.race(limit) { await exited.first { _ in true } }
        if let code = awaited ?? nil { return code }
        return child.status
    }
}

/// What the pipes' readers and the termination handler share with the ``CommandProcess``: the
/// start of a line not yet complete, the tail of standard error, the exit status once known, and
/// a stream for each caller waiting for it.
private final class ChildState: Sendable {
    private struct State {
        var partialLine: [UInt8] = []
        var errorTail: [UInt8] = []
        var status: Int32?
        var waiters: [Int: AsyncStream<Int32>.Continuation] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    var status: Int32? { state.withLock { $0.status } }

    var errorText: String { state.withLock { String(decoding: $0.errorTail, as: UTF8.self) } }

    /// The lines `chunk` of standard output completes.
    func lines(after chunk: Data) -> [String] {
        state.withLock { state in
            state.partialLine += chunk
            var lines: [String] = []
            while let newline = state.partialLine.firstIndex(of: 10) {
                lines.append(String(decoding: state.partialLine[..<newline], as: UTF8.self))
                state.partialLine.removeSubrange(...newline)
            }
            return lines
        }
    }

    /// Keeps `chunk` of standard error, and at most the last `limit` bytes in all.
    func keepError(_ chunk: Data, limit: Int) {
        state.withLock { state in
            state.errorTail += chunk
            if state.errorTail.count > limit { state.errorTail.removeFirst(state.errorTail.count - limit) }
        }
    }

    /// Records the status and hands it to every waiter.
    func exited(_ status: Int32) {
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.yield(status)
            waiter.finish()
        }
    }

    /// A stream that yields the status (at once if it is known) and its token.
    func waiter() -> (AsyncStream<Int32>, Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        let token = state.withLock { state -> Int in
            state.next += 1
            if let status = state.status {
                continuation.yield(status)
                continuation.finish()
            } else {
                state.waiters[state.next] = continuation
            }
            return state.next
        }
        return (stream, token)
    }

    func remove(_ token: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: token) }
        waiter?.finish()
    }
}
