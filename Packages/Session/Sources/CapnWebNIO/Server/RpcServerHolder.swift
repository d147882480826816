import Synchronization
internal import CapnWebCore

/// Hands the ``RpcServer`` to the transport server's handlers, which exist before it does.
final class RpcServerHolder: Sendable {
    private let stored = Mutex<RpcServer?>(nil)

    var server: RpcServer? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
