/// The actor types a server offers, by name.
///
/// ```swift
/// var registry = ActorRegistry()
/// registry.register(counter)
/// registry.register(chat)
/// ```
public struct ActorRegistry: Sendable {
    var behaviors: [String: any ActorBehavior] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Adds an actor type, replacing one of the same name.
    public mutating func register<State>(_ definition: ActorDefinition<State>) {
        behaviors[definition.name] = definition
    }

    /// The names of the registered actor types, sorted.
    public var names: [String] { behaviors.keys.sorted() }

    func behavior(_ name: String) -> (any ActorBehavior)? {
        behaviors[name]
    }
}
