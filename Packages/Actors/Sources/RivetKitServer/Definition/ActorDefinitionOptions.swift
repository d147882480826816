/// Per-type settings of an actor, set with ``ActorDefinition/options(_:)``; a setting left `nil`
/// takes the server's (``ActorServerConfiguration``).
///
/// ```swift
/// ActorDefinition("room", initialState: Room())
///     .options(ActorDefinitionOptions(sleepTimeout: .seconds(5), actionTimeout: .seconds(10)))
/// ```
public struct ActorDefinitionOptions: Sendable, Equatable {
    /// How long an instance with no connection, no request and no keep-awake work stays in
    /// memory before it sleeps; `nil` for ``ActorServerConfiguration/sleepTimeout``.
    public var sleepTimeout: Duration?
    /// Whether instances never sleep (they stay in memory until destroyed or the server stops).
    public var noSleep: Bool
    /// How long one action may run before its caller gets `actor.action_timed_out`; `nil` for
    /// ``ActorServerConfiguration/actionTimeout``.
    public var actionTimeout: Duration?

    /// Creates options; every parameter has the default its property documents.
    public init(sleepTimeout: Duration? = nil, noSleep: Bool = false, actionTimeout: Duration? = nil) {
        self.sleepTimeout = sleepTimeout
        self.noSleep = noSleep
        self.actionTimeout = actionTimeout
    }
}
