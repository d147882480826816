import CapnWebCore
import Dispatch
import FuzzSupport
import RpcTransport
import RpcTransportInMemory

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// One fuzz run of a server session: the input, split at newlines into text frames (empty lines
/// are skipped, invalid UTF-8 is repaired as a WebSocket peer would have to send it), is sent in
/// order by a ``ClientPeer`` to a session serving ``FuzzAPI`` over an in-memory pair. The
/// client then closes the connection, and the run checks that
///
/// - the session ends, within ``endBound`` of the close;
/// - once ended, its tables hold only the main entries: `RpcStats(imports: 1, exports: 1)`;
/// - once the run lets go of the session and the connection, the session, both transport ends
///   and every object of the API (the main object, counters, users) are freed within
///   ``releaseBound``, and none of the API's objects was disposed twice.
///
/// A broken property traps; a crash or an AddressSanitizer report is a finding too. No step
/// sleeps for a fixed time: each wait ends as soon as its condition holds.
///
/// The last check stands in for LeakSanitizer, which the fuzz script turns off for this target:
/// the session's tasks and queues free memory on other threads after an input returns, so
/// libFuzzer's per-input leak check (which runs whenever the mallocs and frees of one input do
/// not balance) would fire on almost every input and cut the speed twentyfold. A reference cycle
/// through the engine keeps the transport it holds, or the session, alive, which this sees.
enum SessionRun {
    /// How long the calls the frames started may take to be answered before the connection is
    /// closed; a call that hangs until cancelled uses all of it.
    static let settleBound: DispatchTimeInterval = .milliseconds(10)
    /// How long the session may take to end once its transport closed.
    static let endBound: DispatchTimeInterval = .seconds(5)
    /// How long the API's objects may take to be freed once the session ended.
    static let releaseBound: Duration = .seconds(5)

    static func check(_ input: UnsafeRawBufferPointer) {
        let frames = split(input)
        let what = { "after the frames \(Excerpt.of(Array(input)))" }
        precondition(FuzzObjects.live == 0, "objects of an earlier run are still alive")
        let left = run(frames, what)
        // Everything the run made is out of scope: the session's tasks finish as they see it
        // ended, and the objects they held go with them.
        let deadline = ContinuousClock.now + releaseBound
        while let alive = left.alive() {
            precondition(
                ContinuousClock.now < deadline,
                "\(alive) still alive \(releaseBound) after the session ended, \(what())")
            sched_yield()
        }
    }

    /// The lines of `input` that are not empty.
    static func split(_ input: UnsafeRawBufferPointer) -> [String] {
        input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Weak references to what one run made, to see that it is all freed.
    private struct Leftovers {
        weak var session: RpcSession<Any>?
        weak var clientEnd: InMemoryTransport?
        weak var serverEnd: InMemoryTransport?

        /// What is still alive, or `nil` when nothing is.
        func alive() -> String? {
            var alive: [String] = []
            if session != nil { alive.append("the session") }
            if clientEnd != nil { alive.append("the client's transport") }
            if serverEnd != nil { alive.append("the server's transport") }
            let objects = FuzzObjects.live
            if objects > 0 { alive.append("\(objects) object(s) of the API") }
            return alive.isEmpty ? nil : alive.joined(separator: ", ")
        }
    }

    /// Runs the session on `frames` and checks how it ended.
    private static func run(_ frames: [String], _ what: () -> String) -> Leftovers {
        let (clientEnd, serverEnd) = InMemoryTransport.makePair()
        let peer = ClientPeer(clientEnd)
        let session = RpcSession<Any>.start(transport: serverEnd, main: FuzzAPI())
        let ended = DispatchSemaphore(value: 0)
        // Registered before any frame is sent: nothing can end the session earlier.
        session.onDisconnect { _ in ended.signal() }

        for frame in frames {
            // The session closes the connection when it aborts; the rest is not sent.
            guard peer.send(frame) else { break }
        }

        // Gives the calls the frames started a moment to be answered, so that their answers
        // (and the server's own calls to the peer) are part of the run, not cut off by the close.
        let drained = DispatchSemaphore(value: 0)
        Task {
            await session.drain()
            drained.signal()
        }
        _ = drained.wait(timeout: .now() + settleBound)

        Task { await clientEnd.close(code: .normal, reason: "end of input") }
        guard ended.wait(timeout: .now() + endBound) == .success else {
            let (count, first) = peer.transcript
            preconditionFailure(
                "the session did not end within \(endBound) of its transport closing \(what()); it sent \(count) frame(s), first \(first)")
        }
        let stats = session.getStats()
        guard stats == RpcStats(imports: 1, exports: 1) else {
            let (count, first) = peer.transcript
            preconditionFailure(
                "an ended session holds \(stats), not {imports: 1, exports: 1}, \(what()); it sent \(count) frame(s), first \(first)")
        }
        return Leftovers(session: session, clientEnd: clientEnd, serverEnd: serverEnd)
    }
}
