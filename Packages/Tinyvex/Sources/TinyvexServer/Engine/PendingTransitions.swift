/// The changes waiting for the next transition of each connection that asked for transitions,
/// kept by the engine until every subscription of that connection is current again.
struct PendingTransitions: Sendable {
    private var changes: [UInt64: [String: Transition.Change]] = [:]
    private var requestIDs: [UInt64: [String]] = [:]

    /// The connections that have changes waiting.
    var connections: Dictionary<UInt64, [String: Transition.Change]>.Keys { changes.keys }

    /// Whether no connection has changes waiting.
    var isEmpty: Bool { changes.isEmpty }

    /// A subscription's new value; it replaces one waiting for the same subscription.
    mutating func add(_ change: Transition.Change, for connectionID: UInt64) {
        changes[connectionID, default: [:]][change.subID] = change
    }

    /// The subscription ended: its waiting value is not sent.
    mutating func remove(subID: String, for connectionID: UInt64) {
        guard changes[connectionID]?.removeValue(forKey: subID) != nil else { return }
        if changes[connectionID]?.isEmpty == true { changes[connectionID] = nil }
    }

    /// The connection is gone.
    mutating func remove(connectionID: UInt64) {
        changes[connectionID] = nil
        requestIDs[connectionID] = nil
    }

    /// A mutation of the connection committed: its `requestId` rides on the connection's next
    /// transition, if one is sent before the mutation's answer.
    mutating func committed(requestID: String, for connectionID: UInt64) {
        requestIDs[connectionID, default: []].append(requestID)
    }

    /// Forgets the `requestId`s no transition carried (their answers are being sent).
    mutating func clearRequestIDs() {
        requestIDs.removeAll(keepingCapacity: true)
    }

    /// Takes the connection's waiting changes as a transition at `version`; `nil` when none wait.
    mutating func take(for connectionID: UInt64, version: Int64) -> Transition? {
        guard let waiting = changes.removeValue(forKey: connectionID) else { return nil }
        let ids = requestIDs.removeValue(forKey: connectionID) ?? []
        return Transition(version: version, changes: Array(waiting.values), requestIDs: ids)
    }
}
