public import Foundation
public import RivetKit

/// A pending one-shot schedule of an actor, as ``ActorSchedule/list()`` reports it.
public struct ActorScheduleEntry: Sendable, Hashable {
    /// The schedule's id, as ``ActorSchedule/after(_:_:_:)`` returned it.
    public var id: String
    /// The action it will run.
    public var action: String
    /// The action's arguments.
    public var args: [JSONValue]
    /// When it is due.
    public var runAt: Date

    /// Creates an entry.
    public init(id: String, action: String, args: [JSONValue], runAt: Date) {
        self.id = id
        self.action = action
        self.args = args
        self.runAt = runAt
    }
}
