import RpcWire

/// The optimistic updates of the mutations in flight, in the order they were made, as a value:
/// what the client shows is the server's values (the base) with every pending update replayed
/// over them in order, computed again whenever the base changes or an update comes or goes.
///
/// A mutation's update is dropped when the server's state that includes the mutation arrives
/// (the transition naming its `requestId`, or its answer) or when the mutation fails, so its
/// edit is replaced by the server's value or rolled back, while the updates of later mutations
/// still apply on top.
struct OptimisticLayers: Sendable {
    /// An update: edits the store; it may run several times (once per replay).
    typealias Update = @Sendable (inout OptimisticLocalStore) -> Void

    private var pending: [(id: String, update: Update)] = []

    /// Whether no update is pending.
    var isEmpty: Bool { pending.isEmpty }

    /// The ids of the pending updates, in order.
    var ids: [String] { pending.map(\.id) }

    /// A mutation's update, after those already pending.
    mutating func add(id: String, _ update: @escaping Update) {
        pending.append((id, update))
    }

    /// Drops the updates of `ids`; returns whether any was pending.
    mutating func remove(_ ids: some Sequence<String>) -> Bool {
        let drop = Set(ids)
        let before = pending.count
        pending.removeAll { drop.contains($0.id) }
        return pending.count != before
    }

    /// `base` (each query's server value) with every pending update replayed in order.
    func view(over base: [String: OptimisticLocalStore.Entry]) -> [String: OptimisticLocalStore.Entry] {
        guard !pending.isEmpty else { return base }
        var store = OptimisticLocalStore(entries: base)
        for (_, update) in pending { update(&store) }
        return store.entries
    }
}
