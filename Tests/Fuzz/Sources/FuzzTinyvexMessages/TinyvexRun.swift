import Dispatch
import FuzzSupport
import RpcTransport
import RpcTransportInMemory
import Synchronization
import TinyvexServer

/// One fuzz run of a Tinyvex server connection: the input, split at newlines into text frames
/// (empty lines skipped, invalid UTF-8 repaired as a WebSocket peer would have to send it), is
/// sent in order over an in-memory pair to a fresh server with the demo schema in an in-memory
/// store. The client then closes the connection, and the run checks that the connection's
/// handler returns, and the server with it, within ``endBound`` of the close, whatever the
/// frames asked for (long actions, many subscriptions), so nothing it started outlives it.
///
/// A crash, a trap or an AddressSanitizer report is a finding too. Each run has a server of its
/// own, so a failing input replays alone; the server listens on a loopback port nothing
/// connects to.
enum TinyvexRun {
    /// How long the server may take to open its store and listen.
    static let openBound: DispatchTimeInterval = .seconds(10)
    /// How long the connection and the server may take to end once the client closed.
    static let endBound: DispatchTimeInterval = .seconds(5)

    static func check(_ input: UnsafeRawBufferPointer) {
        let frames = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
        let what = { "after the frames \(Excerpt.of(Array(input)))" }
        for frame in frames {
            let outcomes = TinyvexMessageDecoder.decode(Array(frame.utf8))
            precondition(!outcomes.isEmpty, "the decoder gives no outcome for the frame \(Excerpt.of(frame))")
            for case .refused(let code) in outcomes {
                precondition((-32768 ... -32000).contains(code), "the decoder refuses the frame \(Excerpt.of(frame)) with code \(code)")
            }
        }
        let (clientEnd, serverEnd) = InMemoryTransport.makePair()
        // The answers are read and dropped: what they say is the protocol tests' business.
        clientEnd.start { _ in }
        let opened = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        Task {
            do {
                try await TinyvexServer.withServer(schema: TinyvexDemoSchema.schema(), database: .inMemory, port: 0) { server in
                    opened.signal()
                    await server.serve(serverEnd)
                }
            } catch {
                failure.withLock { $0 = "the Tinyvex server failed: \(error)" }
                opened.signal()
            }
            ended.signal()
        }
        precondition(opened.wait(timeout: .now() + openBound) == .success, "the Tinyvex server did not open within \(openBound)")
        if let failure = failure.withLock({ $0 }) {
            preconditionFailure(failure)
        }
        for frame in frames {
            // The server closes the connection when it gives up on it; the rest is not sent.
            guard (try? clientEnd.enqueue(.text(frame))) != nil else { break }
        }
        Task { await clientEnd.close(code: .normal, reason: "end of input") }
        precondition(
            ended.wait(timeout: .now() + endBound) == .success,
            "the connection and its server did not end within \(endBound) of the close \(what())")
        if let failure = failure.withLock({ $0 }) {
            preconditionFailure("\(failure) \(what())")
        }
    }
}
