import Foundation
import RpcTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A running copy of the Python peer script, with what it printed so far.
///
/// Standard output is read line by line on a thread of its own; lines that are JSON objects are
/// decoded into ``PeerEvent``s. Every wait is bounded. ``terminate()`` stops the process (and is
/// called by ``withPeer(_:name:isolation:_:)`` however the body ends), first politely, then with
/// `SIGKILL`.
final class PeerProcess: Sendable {
    /// The peer did not do what a test waited for.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Output {
        var lines: [String] = []
        var partialLine: [UInt8] = []
        var standardError: [UInt8] = []
        var standardOutputClosed = false
        var standardErrorClosed = false
    }

    /// A short name for messages, for example `python server`.
    let name: String
    private let process: Process
    private let output = Mutex(Output())

    private init(name: String, process: Process) {
        self.name = name
        self.process = process
    }

    /// Starts the peer script with `arguments`.
    ///
    /// - Throws: ``InteropEnvironment/Unavailable`` when there is no interpreter, or the error
    ///   of starting the process.
    static func launch(_ arguments: [String], name: String) throws -> PeerProcess {
        let interpreter = try InteropEnvironment.interpreter()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = ["-u", InteropEnvironment.peerScript] + arguments
        process.standardInput = FileHandle.nullDevice
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.standardOutput = standardOutput
        process.standardError = standardError
        let peer = PeerProcess(name: name, process: process)
        try process.run()
        peer.startReading(standardOutput.fileHandleForReading, isStandardOutput: true)
        peer.startReading(standardError.fileHandleForReading, isStandardOutput: false)
        return peer
    }

    /// Starts the peer, runs `body` with it and terminates it afterwards, whether `body`
    /// returns or throws.
    static func withPeer<Result>(
        _ arguments: [String],
        name: String,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PeerProcess) async throws -> Result
    ) async throws -> Result {
        let peer = try launch(arguments, name: name)
        do {
            let result = try await body(peer)
            await peer.terminate()
            return result
        } catch {
            await peer.terminate()
            throw error
        }
    }

    // MARK: Output

    /// Every line printed on standard output so far.
    var lines: [String] {
        output.withLock { $0.lines }
    }

    /// Every JSON line printed so far, decoded.
    var events: [PeerEvent] {
        lines.compactMap(PeerEvent.init(line:))
    }

    /// What the peer printed on standard output and standard error, for failure messages.
    var transcript: String {
        output.withLock { output in
            let errorText = String(decoding: output.standardError, as: UTF8.self)
            let lines = output.lines.map { $0.count > 400 ? String($0.prefix(400)) + "…" : $0 }
            return "\(name) stdout:\n" + lines.joined(separator: "\n") + "\n\(name) stderr:\n" + errorText
        }
    }

    /// Waits for the `READY <port>` line of server mode and returns the port.
    func waitForReadyPort(within limit: Duration = .seconds(20)) async throws -> Int {
        let line = try await waitForLine("the READY line", within: limit) { $0.hasPrefix("READY ") }
        guard let port = Int(line.dropFirst("READY ".count)) else {
            throw Failure(description: "\(name) printed a malformed READY line: \(line)")
        }
        return port
    }

    /// Waits for an event that satisfies `condition` and returns it.
    func waitForEvent(
        _ what: String,
        within limit: Duration = .seconds(20),
        where condition: (PeerEvent) -> Bool
    ) async throws -> PeerEvent {
        let line = try await waitForLine(what, within: limit) { line in
            PeerEvent(line: line).map(condition) ?? false
        }
        guard let event = PeerEvent(line: line) else {
            throw Failure(description: "\(name) printed an undecodable line: \(line)")
        }
        return event
    }

    /// Waits until the process exits by itself and its output has been read, and returns every
    /// event it printed.
    func waitForExit(within limit: Duration = .seconds(30)) async throws -> [PeerEvent] {
        let exited = await waitUntil(timeout: limit, every: .milliseconds(10)) {
            !process.isRunning && output.withLock { $0.standardOutputClosed && $0.standardErrorClosed }
        }
        guard exited else {
            throw Failure(description: "\(name) did not exit within \(limit)\n\(transcript)")
        }
        return events
    }

    /// The exit status; only meaningful once the process exited.
    var exitStatus: Int32 {
        process.isRunning ? -1 : process.terminationStatus
    }

    private func waitForLine(
        _ what: String,
        within limit: Duration,
        where condition: (String) -> Bool
    ) async throws -> String {
        do {
            return try await waitFor(what, timeout: limit) { () throws -> String? in
                let (lines, closed) = output.withLock { ($0.lines, $0.standardOutputClosed) }
                if let line = lines.first(where: condition) {
                    return line
                }
                if closed {
                    throw Failure(description: "\(name) exited before printing \(what)\n\(transcript)")
                }
                return nil
            }
        } catch is WaitTimedOut {
            throw Failure(description: "\(name) did not print \(what) within \(limit)\n\(transcript)")
        }
    }

    // MARK: Lifetime

    /// Stops the process: `SIGTERM`, then `SIGKILL` when it is still running two seconds later.
    /// Returns once it has exited (or, should even `SIGKILL` not end it, after another two
    /// seconds). Waits without blocking a thread, and is not cut short by cancellation.
    func terminate() async {
        guard process.isRunning else { return }
        process.terminate()
        if await waitForProcessExit(within: .seconds(2)) {
            return
        }
        kill(process.processIdentifier, SIGKILL)
        _ = await waitForProcessExit(within: .seconds(2))
    }

    private func waitForProcessExit(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return false }
            // Not `Task.sleep`: a cancelled test must still stop its peer.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) {
                    continuation.resume()
                }
            }
        }
        return true
    }

    private func startReading(_ handle: FileHandle, isStandardOutput: Bool) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty {
                    break
                }
                output.withLock { output in
                    if isStandardOutput {
                        output.partialLine.append(contentsOf: data)
                        while let newline = output.partialLine.firstIndex(of: UInt8(ascii: "\n")) {
                            output.lines.append(String(decoding: output.partialLine[..<newline], as: UTF8.self))
                            output.partialLine.removeSubrange(...newline)
                        }
                    } else {
                        output.standardError.append(contentsOf: data)
                    }
                }
            }
            output.withLock { output in
                if isStandardOutput {
                    if !output.partialLine.isEmpty {
                        output.lines.append(String(decoding: output.partialLine, as: UTF8.self))
                        output.partialLine.removeAll()
                    }
                    output.standardOutputClosed = true
                } else {
                    output.standardErrorClosed = true
                }
            }
        }
    }
}

/// One JSON line the peer printed: an `open`, `message`, `ping`, `pong`, `closed` or `error`
/// event.
struct PeerEvent: Decodable, Sendable, CustomStringConvertible {
    /// `open`, `message`, `ping`, `pong`, `closed` or `error`.
    var event: String
    /// For `open`: the agreed subprotocol.
    var subprotocol: String?
    /// For `open`: the `Sec-WebSocket-Extensions` header of the handshake answer.
    var extensions: String?
    /// For `open` in server mode: the `Sec-WebSocket-Extensions` header the client sent.
    var offeredExtensions: String?
    /// For `open` in server mode: the request path.
    var path: String?
    /// For `message`: `text` or `binary`.
    var kind: String?
    /// For `message`: the payload length in bytes.
    var length: Int?
    /// For short text messages: the text.
    var text: String?
    /// For `message` in client mode: whether the reply equals what was sent.
    var matchesSent: Bool?
    /// For `message` in client mode: set when a message arrived where a close was expected.
    var unexpected: Bool?
    /// For `closed`: the close code, `nil` when none was received.
    var code: Int?
    /// For `closed`: the close reason.
    var reason: String?
    /// For `error`: where it happened, `connect` or `session`.
    var stage: String?
    /// For `error`: the Python exception type.
    var type: String?
    /// For `error`: the exception's message.
    var message: String?
    /// For `ping` and `pong`: the payload, in hexadecimal.
    var data: String?

    enum CodingKeys: String, CodingKey {
        case event, subprotocol, extensions, path, kind, length, text, unexpected, code, reason, stage, type, message, data
        case offeredExtensions = "offered_extensions"
        case matchesSent = "matches_sent"
    }

    /// Decodes a line; `nil` when it is not a JSON event.
    init?(line: String) {
        guard line.hasPrefix("{"), let event = try? JSONDecoder().decode(PeerEvent.self, from: Data(line.utf8)) else {
            return nil
        }
        self = event
    }

    /// The event without its long fields.
    var description: String {
        var parts = [event]
        if let kind { parts.append("kind=\(kind)") }
        if let length { parts.append("length=\(length)") }
        if let matchesSent { parts.append("matches_sent=\(matchesSent)") }
        if let subprotocol { parts.append("subprotocol=\(subprotocol)") }
        if let extensions { parts.append("extensions=\(extensions)") }
        if let code { parts.append("code=\(code)") }
        if let reason { parts.append("reason=\(reason)") }
        if let type { parts.append("type=\(type)") }
        if let message { parts.append("message=\(message)") }
        return parts.joined(separator: " ")
    }
}
