import RivetKit

/// What ``ActorInstance/performImmediately(_:args:connection:traceParent:)`` did with an action
/// it ran at once.
enum ImmediateAction: Sendable {
    /// An action that ran and changed the state, which is saved before the action is answered.
    struct Saving: Sendable {
        /// The state the action started from.
        let before: ActorStateValue
        /// The state it left.
        let after: ActorStateValue
        /// Its output, the answer once the state is saved.
        let output: JSONValue
        /// What records the action, ended once it is answered.
        let probe: ActionProbe?
    }

    /// Answered: its output, or its error (the state then stays as it was).
    case answered(Result<JSONValue, ActorError>)
    /// Run, with a new state to save (``ActorInstance/finish(_:)``) before it is answered.
    case saving(Saving)
}
