public import Observation
public import RpcTransport
import Synchronization

/// The state of a managed connection as an observable snapshot, for SwiftUI and other
/// Observation clients: read ``state`` in a view and it updates when the connection changes.
///
/// Updates arrive on the connection's own threads; a view model on the main actor can copy
/// ``state`` inside `withObservationTracking` or read it from a SwiftUI body.
public final class ConnectionStatus: Observable, Sendable {
    private let registrar = ObservationRegistrar()
    private let storage: Mutex<ConnectionState>

    init(_ state: ConnectionState = .connecting) {
        storage = Mutex(state)
    }

    /// The current state.
    public var state: ConnectionState {
        registrar.access(self, keyPath: \.state)
        return storage.withLock { $0 }
    }

    /// Whether the connection is usable now.
    public var isConnected: Bool { state.isConnected }

    func update(_ newState: ConnectionState) {
        registrar.withMutation(of: self, keyPath: \.state) {
            storage.withLock { $0 = newState }
        }
    }
}
