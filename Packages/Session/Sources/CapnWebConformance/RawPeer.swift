public import RpcTransport
import RpcTransportTesting
import Synchronization

/// A test peer that speaks raw frames over any `MessageTransport` (an in-memory end, or a
/// WebSocket a client opened to a server): it records every text frame it receives and sends
/// frames given as JSON text.
///
/// ```swift
/// let peer = RawPeer(try await WebSocketClient.connect(to: url))
/// try peer.send(#"["push",["pipeline",0,["square"],[5]]]"#)
/// try peer.send(#"["pull",1]"#)
/// let missing = await peer.expect([#"["resolve",1,25]"#])
/// ```
public final class RawPeer: Sendable {
    private struct State {
        /// Received frames not yet matched by ``RawPeer/expect(_:timeout:)``.
        var pool: [String] = []
        var closed = false
    }

    /// The transport the frames go over.
    public let transport: any MessageTransport
    private let state = Mutex(State())

    /// Starts recording what arrives on `transport`.
    public init(_ transport: any MessageTransport) {
        self.transport = transport
        transport.start { [weak self] event in
            switch event {
            case .message(let message):
                let text = message.text ?? "<binary>"
                self?.state.withLock { $0.pool.append(text) }
            case .closed:
                self?.state.withLock { $0.closed = true }
            }
        }
    }

    /// Sends one frame.
    public func send(_ text: String) throws {
        try transport.enqueue(.text(text))
    }

    /// Waits until every frame of `expected` (a multiset: any order) has arrived, then removes
    /// them from the pool. Returns the frames still missing when `timeout` passed (those that
    /// did arrive are removed all the same).
    public func expect(_ expected: [String], timeout: Duration = .seconds(10)) async -> [String] {
        // A complete match takes the frames out of the pool at once.
        if await waitUntil(timeout: timeout, { match(expected, removeUnlessComplete: false).isEmpty }) {
            return []
        }
        return match(expected, removeUnlessComplete: true)
    }

    /// The frames of `expected` not in the pool. When all are there, or when
    /// `removeUnlessComplete`, the ones that are there are taken out of the pool.
    private func match(_ expected: [String], removeUnlessComplete: Bool) -> [String] {
        state.withLock { state -> [String] in
            var pool = state.pool
            var missing: [String] = []
            for frame in expected {
                if let index = pool.firstIndex(of: frame) {
                    pool.remove(at: index)
                } else {
                    missing.append(frame)
                }
            }
            if missing.isEmpty || removeUnlessComplete {
                state.pool = pool
            }
            return missing
        }
    }

    /// The received frames nobody expected, up to a marker: `sender` (the transport at the
    /// other end, whose session the caller has let finish its work, for example with `drain()`)
    /// sends a marker frame, which arrives behind every frame that session sent before it.
    /// Returns `nil` when the marker does not arrive.
    public func leftovers(markedBy sender: any MessageTransport, timeout: Duration = .seconds(10)) async -> [String]? {
        let marker = "end-of-frames marker"
        guard (try? sender.enqueue(.text(marker))) != nil else { return nil }
        return await leftovers(before: marker, timeout: timeout)
    }

    /// The received frames nobody expected, up to the frame `marker`, which the other end sent
    /// behind them: waits for `marker`, then removes it and every frame before it from the pool
    /// and returns those before it. Returns `nil` when `marker` does not arrive within `timeout`.
    public func leftovers(before marker: String, timeout: Duration = .seconds(10)) async -> [String]? {
        try? await waitFor("the marker frame", timeout: timeout) { () -> [String]? in
            state.withLock { state in
                guard let index = state.pool.firstIndex(of: marker) else { return nil }
                defer { state.pool.removeSubrange(...index) }
                return Array(state.pool[..<index])
            }
        }
    }

    /// Removes and returns every frame received so far.
    public func takeAll() -> [String] {
        state.withLock { state in
            defer { state.pool = [] }
            return state.pool
        }
    }
}
