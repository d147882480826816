import RpcWire
import Synchronization

/// The thin shell over the client's ``SubscriptionTable``: it keeps the table behind a lock and
/// tells the listeners what each transition delivers, outside the lock, in order.
final class SubscriptionRegistry: Sendable {
    typealias Event = SubscriptionTable.Event
    typealias Listener = SubscriptionTable.Listener
    typealias Upstream = SubscriptionTable.Upstream
    typealias Added = SubscriptionTable.Added

    private let table = Mutex(SubscriptionTable())

    /// See ``SubscriptionTable/add(key:name:params:listener:)``.
    func add(key: String, name: String, params: JSONValue, listener: @escaping Listener) -> Added {
        table.withLock { $0.add(key: key, name: name, params: params, listener: listener) }
    }

    /// See ``SubscriptionTable/remove(key:listenerID:)``.
    func remove(key: String, listenerID: UInt64) -> String? {
        table.withLock { $0.remove(key: key, listenerID: listenerID) }
    }

    /// Every live upstream subscription, with the `lastSeq` to resume from.
    var live: [Upstream] { table.withLock { $0.live } }

    /// The number of upstream subscriptions (one per distinct query).
    var upstreamCount: Int { table.withLock { $0.upstreamCount } }

    /// See ``SubscriptionTable/claim(subID:generation:)``.
    func claim(subID: String, generation: UInt64) -> Upstream? {
        table.withLock { $0.claim(subID: subID, generation: generation) }
    }

    /// See ``SubscriptionTable/claimAll(generation:)``.
    func claimAll(generation: UInt64) -> [Upstream] {
        table.withLock { $0.claimAll(generation: generation) }
    }

    /// See ``SubscriptionTable/receive(subID:seq:value:)``.
    func receive(subID: String, seq: Int64, value: JSONValue) {
        perform(table.withLock { $0.receive(subID: subID, seq: seq, value: value) })
    }

    /// See ``SubscriptionTable/restartSeq(subID:)``.
    func restartSeq(subID: String) {
        table.withLock { $0.restartSeq(subID: subID) }
    }

    /// See ``SubscriptionTable/receiveChunk(subID:seq:transitionID:part:total:chunk:)``.
    func receiveChunk(subID: String, seq: Int64, transitionID: String, part: Int, total: Int, chunk: String) {
        perform(table.withLock { $0.receiveChunk(subID: subID, seq: seq, transitionID: transitionID, part: part, total: total, chunk: chunk) })
    }

    /// See ``SubscriptionTable/receiveTransition(_:)``: every value is held before any
    /// listener is told.
    func receiveTransition(_ params: JSONObject) {
        perform(table.withLock { $0.receiveTransition(params) })
    }

    /// See ``SubscriptionTable/receiveTransitionChunk(transitionID:part:total:chunk:)``.
    func receiveTransitionChunk(transitionID: String, part: Int, total: Int, chunk: String) {
        perform(table.withLock { $0.receiveTransitionChunk(transitionID: transitionID, part: part, total: total, chunk: chunk) })
    }

    /// The version of the newest transition applied and every query's value, read at once.
    var snapshot: (version: Int64?, values: [(name: String, params: JSONValue, value: JSONValue?)]) {
        table.withLock { ($0.version, $0.values) }
    }

    /// See ``SubscriptionTable/pause()``.
    func pause() {
        table.withLock { $0.pause() }
    }

    /// See ``SubscriptionTable/resume()``.
    func resume() {
        perform(table.withLock { $0.resume() })
    }

    /// See ``SubscriptionTable/discardPaused()``.
    func discardPaused() {
        table.withLock { $0.discardPaused() }
    }

    /// See ``SubscriptionTable/addOptimistic(id:_:)``.
    func addOptimistic(id: String, _ update: @escaping OptimisticLayers.Update) {
        perform(table.withLock { $0.addOptimistic(id: id, update) })
    }

    /// See ``SubscriptionTable/dropOptimistic(_:)``.
    func dropOptimistic(_ ids: [String]) {
        perform(table.withLock { $0.dropOptimistic(ids) })
    }

    /// See ``SubscriptionTable/fail(subID:_:)``.
    func fail(subID: String, _ error: TinyvexError) {
        perform(table.withLock { $0.fail(subID: subID, error) })
    }

    /// See ``SubscriptionTable/failAll(_:)``.
    func failAll(_ error: TinyvexError) {
        perform(table.withLock { $0.failAll(error) })
    }

    private func perform(_ deliveries: [SubscriptionTable.Delivery]) {
        for delivery in deliveries { perform(delivery) }
    }

    private func perform(_ delivery: SubscriptionTable.Delivery?) {
        guard let delivery else { return }
        for listener in delivery.listeners { listener(delivery.event) }
    }
}
