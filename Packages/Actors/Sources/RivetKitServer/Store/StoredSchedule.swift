public import RivetKit

/// A pending one-shot schedule as a store keeps it: the actor it belongs to, the action to run,
/// its arguments and when it is due.
public struct StoredSchedule: Sendable, Hashable {
    /// The schedule's id.
    public var id: String
    /// The id of the actor whose action it runs.
    public var actorId: String
    /// The action's name.
    public var action: String
    /// The action's positional arguments.
    public var args: [JSONValue]
    /// When it is due, in milliseconds since 1970.
    public var runAt: Int64

    /// Creates a schedule record.
    public init(id: String, actorId: String, action: String, args: [JSONValue], runAt: Int64) {
        self.id = id
        self.actorId = actorId
        self.action = action
        self.args = args
        self.runAt = runAt
    }
}
