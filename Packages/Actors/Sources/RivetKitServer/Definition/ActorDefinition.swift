public import RivetKit

/// An actor type: its name, how its `Codable` state begins, its typed actions, its vars and
/// connection state, its lifecycle and connection hooks and its options. Build one with the
/// initialiser and the chained `action`/`on…`/`create…` methods, and register it in an
/// ``ActorRegistry``.
///
/// ```swift
/// struct Counter: Codable, Sendable { var count = 0 }
///
/// let counter = ActorDefinition("counter", initialState: Counter())
///     .action("increment") { (context: inout ActorContext<Counter>, by: Int) in
///         context.state.count += by
///         try context.broadcast("newCount", context.state.count)
///         return context.state.count
///     }
///     .action("getCount") { context in context.state.count }
/// ```
///
/// Errors an action or hook throws as ``ActorError`` reach the client with their group,
/// code, message and metadata; any other error reaches it as `rivetkit.internal_error`, without
/// its details.
public struct ActorDefinition<State: Codable & Sendable>: Sendable {
    /// The name clients use for this actor type.
    public let name: String
    let makeState: @Sendable (JSONValue?) async throws -> State
    var actions: [String: ActionBody<State>] = [:]
    var options = ActorDefinitionOptions()
    var lifecycleHooks: [ActorLifecycleHook: @Sendable (inout ActorLifecycleContext<State>) async throws -> Void] = [:]
    var makeVars: (@Sendable (ActorLifecycleContext<State>) async throws -> any Sendable)?
    var stateChanged: (@Sendable (ActorLifecycleContext<State>, State) async -> Void)?
    var makeConnState: (@Sendable (ActorLifecycleContext<State>, ActorConnectionInfo) async throws -> any Sendable)?
    var beforeConnect: (@Sendable (ActorLifecycleContext<State>, ActorConnectionInfo) async throws -> Void)?
    var connected: (@Sendable (inout ActorLifecycleContext<State>, ActorConn) async throws -> Void)?
    var disconnected: (@Sendable (inout ActorLifecycleContext<State>, ActorConn) async throws -> Void)?
    var rawHandlers = ActorRawHandlers<State>()

    /// Defines an actor type whose instances start with `initialState`, whatever their input.
    public init(_ name: String, initialState: State) {
        self.name = name
        self.makeState = { _ in initialState }
    }

    /// Defines an actor type whose instances start with the state `onCreate` makes from the
    /// creation input (`nil` when the client gave none).
    public init(_ name: String, onCreate: @escaping @Sendable (_ input: JSONValue?) async throws -> State) {
        self.name = name
        self.makeState = onCreate
    }

    /// Adds an action without arguments.
    public func action<R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>) async throws -> R
    ) -> Self {
        adding(name) { context, args in
            _ = try ActorValueCoding.arguments(args, count: 0, action: name)
            return try await body(&context)
        }
    }

    /// Adds an action with one argument.
    public func action<A: Decodable & Sendable, R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>, A) async throws -> R
    ) -> Self {
        adding(name) { context, args in
            let values = try ActorValueCoding.arguments(args, count: 1, action: name)
            let a = try ActorValueCoding.decode(A.self, values[0], argument: 0)
            return try await body(&context, a)
        }
    }

    /// Adds an action with two arguments.
    public func action<A: Decodable & Sendable, B: Decodable & Sendable, R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>, A, B) async throws -> R
    ) -> Self {
        adding(name) { context, args in
            let values = try ActorValueCoding.arguments(args, count: 2, action: name)
            let a = try ActorValueCoding.decode(A.self, values[0], argument: 0)
            let b = try ActorValueCoding.decode(B.self, values[1], argument: 1)
            return try await body(&context, a, b)
        }
    }

    /// Adds an action with three arguments.
    public func action<A: Decodable & Sendable, B: Decodable & Sendable, C: Decodable & Sendable, R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>, A, B, C) async throws -> R
    ) -> Self {
        adding(name) { context, args in
            let values = try ActorValueCoding.arguments(args, count: 3, action: name)
            let a = try ActorValueCoding.decode(A.self, values[0], argument: 0)
            let b = try ActorValueCoding.decode(B.self, values[1], argument: 1)
            let c = try ActorValueCoding.decode(C.self, values[2], argument: 2)
            return try await body(&context, a, b, c)
        }
    }

    /// Adds an action that takes its positional arguments as raw JSON values.
    public func action<R: Encodable & Sendable>(
        _ name: String, rawArguments body: @escaping @Sendable (inout ActorContext<State>, [JSONValue]) async throws -> R
    ) -> Self {
        adding(name) { context, args in try await body(&context, args) }
    }

    private func adding<R: Encodable & Sendable>(
        _ name: String,
        _ body: nonisolated(nonsending) @escaping @Sendable (inout ActorContext<State>, [JSONValue]) async throws -> R
    ) -> Self {
        var copy = self
        copy.actions[name] = ActionBody { context, args in
            let output = try await body(&context, args)
            return try ActorValueCoding.encode(output)
        }
        return copy
    }

    private func adding<R: Encodable & Sendable>(
        _ name: String, immediately body: @escaping @Sendable (inout ActorContext<State>, [JSONValue]) throws -> R
    ) -> Self {
        var copy = self
        copy.actions[name] = ActionBody(immediately: { context, args in
            try ActorValueCoding.encode(try body(&context, args))
        })
        return copy
    }
}

extension ActorDefinition {
    /// Adds an action without arguments whose body does not suspend.
    ///
    /// Such an action (a read of the state, say) runs at once on the connection's thread when
    /// the actor is idle, with no task of its own, and is answered in the same turn.
    public func action<R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>) throws -> R
    ) -> Self {
        adding(name, immediately: { context, args in
            _ = try ActorValueCoding.arguments(args, count: 0, action: name)
            return try body(&context)
        })
    }

    /// Adds an action with one argument whose body does not suspend.
    public func action<A: Decodable & Sendable, R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>, A) throws -> R
    ) -> Self {
        adding(name, immediately: { context, args in
            let values = try ActorValueCoding.arguments(args, count: 1, action: name)
            return try body(&context, try ActorValueCoding.decode(A.self, values[0], argument: 0))
        })
    }

    /// Adds an action with two arguments whose body does not suspend.
    public func action<A: Decodable & Sendable, B: Decodable & Sendable, R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>, A, B) throws -> R
    ) -> Self {
        adding(name, immediately: { context, args in
            let values = try ActorValueCoding.arguments(args, count: 2, action: name)
            let a = try ActorValueCoding.decode(A.self, values[0], argument: 0)
            return try body(&context, a, try ActorValueCoding.decode(B.self, values[1], argument: 1))
        })
    }

    /// Adds an action with three arguments whose body does not suspend.
    public func action<A: Decodable & Sendable, B: Decodable & Sendable, C: Decodable & Sendable, R: Encodable & Sendable>(
        _ name: String, _ body: @escaping @Sendable (inout ActorContext<State>, A, B, C) throws -> R
    ) -> Self {
        adding(name, immediately: { context, args in
            let values = try ActorValueCoding.arguments(args, count: 3, action: name)
            let a = try ActorValueCoding.decode(A.self, values[0], argument: 0)
            let b = try ActorValueCoding.decode(B.self, values[1], argument: 1)
            return try body(&context, a, b, try ActorValueCoding.decode(C.self, values[2], argument: 2))
        })
    }

    /// Adds an action that takes its positional arguments as raw JSON values and does not
    /// suspend.
    public func action<R: Encodable & Sendable>(
        _ name: String, rawArguments body: @escaping @Sendable (inout ActorContext<State>, [JSONValue]) throws -> R
    ) -> Self {
        adding(name, immediately: body)
    }
}

/// One action of an actor type, its arguments and output as JSON.
struct ActionBody<State: Codable & Sendable>: Sendable {
    /// Runs on the caller's executor: only the user's body, which the wrapper calls, hops.
    let run: nonisolated(nonsending) @Sendable (inout ActorContext<State>, [JSONValue]) async throws -> JSONValue
    /// The same body without suspending, for an action defined with a synchronous body.
    let immediate: (@Sendable (inout ActorContext<State>, [JSONValue]) throws -> JSONValue)?

    init(_ run: nonisolated(nonsending) @escaping @Sendable (inout ActorContext<State>, [JSONValue]) async throws -> JSONValue) {
        self.run = run
        self.immediate = nil
    }

    init(immediately body: @escaping @Sendable (inout ActorContext<State>, [JSONValue]) throws -> JSONValue) {
        self.run = { context, args in try body(&context, args) }
        self.immediate = body
    }
}
