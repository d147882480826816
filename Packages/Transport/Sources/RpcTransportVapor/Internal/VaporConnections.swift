import Synchronization
import Vapor
import RpcTransport
import RpcTransportNIO

/// The WebSocket connections an application's routes handed to our transports, and the tasks
/// that serve them. One per application, kept in its storage: when the application shuts down
/// (`asyncShutdown()`) it closes the connections still open with 1001 (going away) and awaits
/// their tasks, so no connection's task outlives the application.
final class VaporConnections: Sendable {
    private struct State {
        var open: [ObjectIdentifier: WebSocketTransport] = [:]
        var shuttingDown = false
    }

    private let state = Mutex(State())
    private let tasks = OwnedTasks<ObjectIdentifier>()

    /// Serves `transport` with `handler` in a task this object owns, then closes it normally;
    /// once the application shuts down, closes it with 1001 instead.
    func serve(_ transport: WebSocketTransport, with handler: @escaping @Sendable (WebSocketTransport) async -> Void) {
        let key = ObjectIdentifier(transport)
        let admitted = state.withLock { state -> Bool in
            guard !state.shuttingDown else { return false }
            state.open[key] = transport
            return true
        }
        let started =
            admitted
            && tasks.spawn(key) { [weak self] in
                await handler(transport)
                await transport.close(code: .normal, reason: "")
                _ = self?.state.withLock { $0.open.removeValue(forKey: key) }
            }
        if !started {
            _ = state.withLock { $0.open.removeValue(forKey: key) }
            transport.beginClose(code: .goingAway, reason: "server shutting down")
        }
    }

    /// How many connections are being served.
    var count: Int {
        state.withLock { $0.open.count }
    }

    /// Closes every open connection with 1001 (going away), waits until each is closed (at most
    /// its close timeout), then cancels and awaits the tasks still serving them.
    func shutdown() async {
        let open = state.withLock { state -> [WebSocketTransport] in
            state.shuttingDown = true
            return Array(state.open.values)
        }
        for transport in open {
            transport.beginClose(code: .goingAway, reason: "server shutting down")
        }
        for transport in open {
            _ = await transport.waitUntilClosed()
        }
        await tasks.close()
    }
}

extension Application {
    private struct VaporConnectionsKey: StorageKey, LockKey {
        typealias Value = VaporConnections
    }

    /// Closes the connections when the application shuts down (`asyncShutdown()`), before its
    /// storage goes.
    private struct VaporConnectionsShutdown: LifecycleHandler {
        let connections: VaporConnections

        func shutdownAsync(_ application: Application) async {
            await connections.shutdown()
        }
    }

    /// This application's connections, made at first use; they are closed when it shuts down.
    var transportConnections: VaporConnections {
        locks.lock(for: VaporConnectionsKey.self).withLock {
            if let existing = storage[VaporConnectionsKey.self] {
                return existing
            }
            let connections = VaporConnections()
            storage[VaporConnectionsKey.self] = connections
            lifecycle.use(VaporConnectionsShutdown(connections: connections))
            return connections
        }
    }
}
