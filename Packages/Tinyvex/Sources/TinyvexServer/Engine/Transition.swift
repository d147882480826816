/// What one commit (or one round of re-runs) changed in the subscriptions of a connection that
/// asked for transitions at `tinyvex/connect`: every changed subscription's new value, at one
/// server version, sent as one `tinyvex/transition` so that the client applies them together.
struct Transition: Sendable {
    /// One subscription's new value.
    struct Change: Sendable {
        /// The subscription.
        let subID: String
        /// The version at which the query's value last changed.
        let seq: Int64
        /// The value, encoded once for every subscriber.
        let value: EncodedValue
    }

    /// The server version every value of the connection's subscriptions is current at.
    var version: Int64
    /// The subscriptions whose value changed since the connection's previous transition.
    var changes: [Change]
    /// The `requestId`s of the connection's mutations whose writes this transition is the first
    /// to include (their answers follow it).
    var requestIDs: [String]

    /// This transition followed by `newer`, as one: the newer value of each subscription, the
    /// newer version, the mutations of both.
    func merged(with newer: Transition) -> Transition {
        var changes = self.changes
        var index: [String: Int] = [:]
        for (position, change) in changes.enumerated() { index[change.subID] = position }
        for change in newer.changes {
            if let position = index[change.subID] {
                changes[position] = change
            } else {
                index[change.subID] = changes.count
                changes.append(change)
            }
        }
        return Transition(version: max(version, newer.version), changes: changes, requestIDs: requestIDs + newer.requestIDs)
    }
}
