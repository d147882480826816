import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
import Synchronization
import Testing
@testable import CapnWebCore

/// The close of the transport an abort starts belongs to the session: closing the session
/// waits for it.
@Suite("The close after an abort")
struct AbortCloseTests {
    @Test("closing a session the peer aborted returns once the transport's close the abort started has finished")
    func closeAwaitsTheAbortsClose() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let held = HeldCloseTransport(a)
            let client = peers.startClient(transport: held)
            let peer = FaultPeer(b)
            try peer.send(#"["abort","the server gave up"]"#)
            try await waitUntil("the abort's close to begin") { held.closesStarted == 1 }
            let closing = Task {
                await client.close()
                return held.closeFinished
            }
            held.release()
            #expect(await closing.value, "the session's close returned while the abort's close still ran")
            try await waitUntil("the peer to see the close") { peer.closure != nil }
            #expect(peer.closure?.code == .applicationError)
        }
    }

    @Test("closing a session the peer aborted within a limit cuts a transport whose close does not finish")
    func closeWithinCutsTheAbortsClose() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let held = HeldCloseTransport(a)
            let client = peers.startClient(transport: held)
            let peer = FaultPeer(b)
            try peer.send(#"["abort","the server gave up"]"#)
            try await waitUntil("the abort's close to begin") { held.closesStarted == 1 }
            // The close is never let go: only the cut can end the session's close.
            await client.close(within: .milliseconds(50))
            #expect(held.state.isClosed)
            #expect(held.closeFinished)
        }
    }
}

/// An in-memory end whose close waits, once begun, until the test lets it go (or the end is cut).
private final class HeldCloseTransport: MessageTransport {
    let inner: InMemoryTransport
    private let gate = Mutex<(started: Int, finished: Bool, open: Bool, waiters: [CheckedContinuation<Void, Never>])>(
        (0, false, false, []))

    init(_ inner: InMemoryTransport) {
        self.inner = inner
    }

    /// How many closes have begun.
    var closesStarted: Int { gate.withLock { $0.started } }

    /// Whether a close has returned.
    var closeFinished: Bool { gate.withLock { $0.finished } }

    /// Lets the closes that wait, and those to come, go on.
    func release() {
        let waiters = gate.withLock { gate in
            gate.open = true
            defer { gate.waiters = [] }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var state: TransportState { inner.state }

    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        inner.start(handler)
    }

    func enqueue(_ message: TransportMessage) throws(TransportError) {
        try inner.enqueue(message)
    }

    func send(_ message: TransportMessage) async throws(TransportError) {
        try await inner.send(message)
    }

    func close(code: CloseCode, reason: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = gate.withLock { gate -> Bool in
                gate.started += 1
                if !gate.open { gate.waiters.append(continuation) }
                return gate.open
            }
            if open { continuation.resume() }
        }
        await inner.close(code: code, reason: reason)
        gate.withLock { $0.finished = true }
    }

    /// Cuts the end, which also lets a waiting close go on (as a cut socket ends its close).
    func abort(_ error: TransportError) async {
        await inner.abort(error)
        release()
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        inner.stateUpdates()
    }

    func afterInboundBurst(_ body: @escaping @Sendable () -> Void) {
        inner.afterInboundBurst(body)
    }
}
