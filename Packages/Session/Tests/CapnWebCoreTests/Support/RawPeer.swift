import Synchronization
import RpcTransport
import RpcTransportInMemory

/// A test peer that speaks raw frames: it records every text frame it receives and sends
/// frames given as JSON text.
final class RawPeer: Sendable {
    private struct State {
        /// Received frames not yet matched by ``expect(_:timeout:)``.
        var pool: [String] = []
        var closed = false
    }

    let transport: InMemoryTransport
    private let state = Mutex(State())

    /// Starts recording what arrives on `transport`.
    init(_ transport: InMemoryTransport) {
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
    func send(_ text: String) throws {
        try transport.enqueue(.text(text))
    }

    /// Waits until every frame of `expected` (a multiset: any order) has arrived, then removes
    /// them from the pool. Returns the frames still missing when `timeout` passed (those that
    /// did arrive are removed all the same).
    func expect(_ expected: [String], timeout: Duration = .seconds(3)) async -> [String] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let missing = state.withLock { state -> [String] in
                var pool = state.pool
                var missing: [String] = []
                for frame in expected {
                    if let index = pool.firstIndex(of: frame) {
                        pool.remove(at: index)
                    } else {
                        missing.append(frame)
                    }
                }
                if missing.isEmpty || clock.now >= deadline {
                    state.pool = pool
                }
                return missing
            }
            if missing.isEmpty || clock.now >= deadline { return missing }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The received frames nobody expected, after waiting `grace` for stragglers.
    func leftovers(after grace: Duration = .milliseconds(150)) async -> [String] {
        try? await Task.sleep(for: grace)
        return state.withLock { $0.pool }
    }

    /// Removes and returns every frame received so far.
    func takeAll() -> [String] {
        state.withLock { state in
            defer { state.pool = [] }
            return state.pool
        }
    }
}
