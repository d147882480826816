import Synchronization

/// The servers a client may connect to, and the one its next attempt goes to: the same one
/// until an attempt to open a connection to it fails, then the next, in turn.
final class EndpointRotation: Sendable {
    private let endpoints: [String]
    private let index = Mutex(0)

    /// A rotation over `endpoints` (at least one), starting at the first.
    init(_ endpoints: [String]) {
        self.endpoints = endpoints.isEmpty ? [""] : endpoints
    }

    /// How many endpoints there are.
    var count: Int { endpoints.count }

    /// The endpoint the next attempt goes to, with its position.
    var current: (index: Int, endpoint: String) {
        let position = index.withLock { $0 }
        return (position, endpoints[position])
    }

    /// An attempt to the endpoint at `position` failed: the next attempt goes to the one after
    /// it (unless another attempt has moved on already).
    func failed(_ position: Int) {
        index.withLock { index in
            if index == position { index = (position + 1) % endpoints.count }
        }
    }
}
