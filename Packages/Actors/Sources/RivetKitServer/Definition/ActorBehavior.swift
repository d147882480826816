import RivetKit

/// An actor type with its state type erased, as the server runs it: state travels as JSON
/// between the store and the typed actions.
protocol ActorBehavior: Sendable {
    /// The type's name.
    var name: String { get }
    /// The initial state, as JSON, for a creation input.
    func initialState(input: JSONValue?) async throws(ActorError) -> JSONValue
    /// A saved state read as the type's state: the value actions start from (`nil` for a class,
    /// which is decoded for every action).
    ///
    /// - Throws: `actor.state_unreadable` when `json` does not decode as the state type.
    func loadState(_ json: JSONValue) throws(ActorError) -> ActorStateValue
    /// The type's options.
    var options: ActorDefinitionOptions { get }
    /// Runs action `name` on `state`; returns the new state and the output, on the caller's
    /// executor (a connection's event loop), with no hop of its own.
    nonisolated(nonsending) func perform(
        _ name: String, args: [JSONValue], state: ActorStateValue, connection: ActorConn, runtime: ActorRuntime
    ) async throws(ActorError) -> (state: ActorStateValue, output: JSONValue)
    /// Whether action `name` was defined with a body that does not suspend, which
    /// ``performImmediately(_:args:state:connection:runtime:)`` runs.
    func performsImmediately(_ name: String) -> Bool
    /// Runs action `name`, one for which ``performsImmediately(_:)`` is true, without
    /// suspending; returns the new state and the output.
    func performImmediately(
        _ name: String, args: [JSONValue], state: ActorStateValue, connection: ActorConn, runtime: ActorRuntime
    ) throws(ActorError) -> (state: ActorStateValue, output: JSONValue)
    /// Runs a lifecycle hook (if the type has it); returns the state it left.
    func lifecycle(_ hook: ActorLifecycleHook, state: ActorStateValue, runtime: ActorRuntime) async throws(ActorError)
        -> ActorStateValue
    /// Makes the vars of a starting instance; `nil` when the type makes none.
    func makeVars(state: ActorStateValue, runtime: ActorRuntime) async throws(ActorError) -> (any Sendable)?
    /// Runs the state-change hook with the new state.
    func stateChanged(_ state: ActorStateValue, runtime: ActorRuntime) async
    /// Runs the before-connect hook.
    func beforeConnect(_ connection: ActorConnectionInfo, state: ActorStateValue, runtime: ActorRuntime)
        async throws(ActorError)
    /// Makes a connection's state; `nil` when the type makes none.
    func makeConnState(_ connection: ActorConnectionInfo, state: ActorStateValue, runtime: ActorRuntime)
        async throws(ActorError) -> (any Sendable)?
    /// Runs the connect hook; returns the state it left.
    func connected(_ connection: ActorConn, state: ActorStateValue, runtime: ActorRuntime) async throws(ActorError)
        -> ActorStateValue
    /// Runs the disconnect hook; returns the state it left.
    func disconnected(_ connection: ActorConn, state: ActorStateValue, runtime: ActorRuntime)
        async throws(ActorError) -> ActorStateValue
    /// Answers a raw HTTP request (`onRequest`); `nil` when the type has no handler. `state`
    /// reads the actor's current state.
    func handleRequest(
        _ request: ActorRequest, connection: ActorConn, runtime: ActorRuntime, state: @escaping @Sendable () -> JSONValue
    ) async throws(ActorError) -> ActorResponse?
    /// Runs the raw WebSocket handler (`onWebSocket`) on `socket`; nothing when there is none.
    func handleWebSocket(
        _ socket: ActorWebSocket, connection: ActorConn, runtime: ActorRuntime, state: @escaping @Sendable () -> JSONValue
    ) async throws(ActorError)
}

extension ActorDefinition: ActorBehavior {
    func initialState(input: JSONValue?) async throws(ActorError) -> JSONValue {
        let state: State
        do {
            state = try await makeState(input)
        } catch {
            throw Self.clientError(error)
        }
        return try ActorValueCoding.encode(state)
    }

    func loadState(_ json: JSONValue) throws(ActorError) -> ActorStateValue {
        let typed = try Self.decodeState(json)
        return ActorStateValue(json: json, typed: State.self is AnyObject.Type ? nil : typed)
    }

    static func decodeState(_ json: JSONValue) throws(ActorError) -> State {
        do {
            return try JSONValueDecoder().decode(State.self, from: json)
        } catch {
            throw ActorError(
                .actorStateUnreadable,
                "the saved state does not decode as \(State.self): \(error)")
        }
    }

    nonisolated(nonsending) func perform(
        _ name: String, args: [JSONValue], state: ActorStateValue, connection: ActorConn, runtime: ActorRuntime
    ) async throws(ActorError) -> (state: ActorStateValue, output: JSONValue) {
        guard let action = actions[name] else {
            throw ActorError(.actionNotFound, "the action \(name) does not exist")
        }
        let (typed, cached) = try Self.typedState(state)
        var context = ActorContext(state: typed, connection: connection, runtime: runtime)
        let output: JSONValue
        do {
            output = try await action.run(&context, args)
        } catch {
            throw Self.clientError(error)
        }
        return (try Self.stateValue(context.state, before: typed, cached: cached, json: state.json), output)
    }

    func performsImmediately(_ name: String) -> Bool {
        actions[name]?.immediate != nil
    }

    func performImmediately(
        _ name: String, args: [JSONValue], state: ActorStateValue, connection: ActorConn, runtime: ActorRuntime
    ) throws(ActorError) -> (state: ActorStateValue, output: JSONValue) {
        guard let action = actions[name]?.immediate else {
            throw ActorError(.actionNotFound, "the action \(name) does not exist")
        }
        let (typed, cached) = try Self.typedState(state)
        var context = ActorContext(state: typed, connection: connection, runtime: runtime)
        let output: JSONValue
        do {
            output = try action(&context, args)
        } catch {
            throw Self.clientError(error)
        }
        return (try Self.stateValue(context.state, before: typed, cached: cached, json: state.json), output)
    }

    /// The typed state an action or hook starts from, and whether it came from memory.
    static func typedState(_ state: ActorStateValue) throws(ActorError) -> (State, cached: Bool) {
        // A typed state left by the previous action is what `state.json` was encoded from.
        if let decoded = state.typed as? State { return (decoded, true) }
        return (try decodeState(state.json), false)
    }

    /// The state `after` an action or hook that started from `before` (`json`'s value).
    static func stateValue(_ after: State, before: State, cached: Bool, json: JSONValue) throws(ActorError)
        -> ActorStateValue
    {
        let json = cached && isPlainValue(after, bitwiseEqualTo: before) ? json : try ActorValueCoding.encode(after)
        // A class instance is shared with the action and may change after it: only values are kept.
        let keep: (any Sendable)? = State.self is AnyObject.Type ? nil : after
        return ActorStateValue(json: json, typed: keep)
    }

    /// Runs `body` with a lifecycle context on `state`; returns the state it left.
    func withContext(
        _ state: ActorStateValue, runtime: ActorRuntime,
        _ body: (inout ActorLifecycleContext<State>) async throws -> Void
    ) async throws(ActorError) -> ActorStateValue {
        let (typed, cached) = try Self.typedState(state)
        var context = ActorLifecycleContext(state: typed, runtime: runtime)
        do {
            try await body(&context)
        } catch {
            throw Self.clientError(error)
        }
        return try Self.stateValue(context.state, before: typed, cached: cached, json: state.json)
    }

    func lifecycle(_ hook: ActorLifecycleHook, state: ActorStateValue, runtime: ActorRuntime) async throws(ActorError)
        -> ActorStateValue
    {
        guard let body = lifecycleHooks[hook] else { return state }
        return try await withContext(state, runtime: runtime) { context in try await body(&context) }
    }

    func makeVars(state: ActorStateValue, runtime: ActorRuntime) async throws(ActorError) -> (any Sendable)? {
        guard let makeVars else { return nil }
        var vars: (any Sendable)?
        _ = try await withContext(state, runtime: runtime) { context in vars = try await makeVars(context) }
        return vars
    }

    func stateChanged(_ state: ActorStateValue, runtime: ActorRuntime) async {
        guard let stateChanged, let (typed, _) = try? Self.typedState(state) else { return }
        await stateChanged(ActorLifecycleContext(state: typed, runtime: runtime), typed)
    }

    func beforeConnect(_ connection: ActorConnectionInfo, state: ActorStateValue, runtime: ActorRuntime)
        async throws(ActorError)
    {
        guard let beforeConnect else { return }
        _ = try await withContext(state, runtime: runtime) { context in try await beforeConnect(context, connection) }
    }

    func makeConnState(_ connection: ActorConnectionInfo, state: ActorStateValue, runtime: ActorRuntime)
        async throws(ActorError) -> (any Sendable)?
    {
        guard let makeConnState else { return nil }
        var made: (any Sendable)?
        _ = try await withContext(state, runtime: runtime) { context in made = try await makeConnState(context, connection) }
        return made
    }

    func connected(_ connection: ActorConn, state: ActorStateValue, runtime: ActorRuntime) async throws(ActorError)
        -> ActorStateValue
    {
        guard let connected else { return state }
        return try await withContext(state, runtime: runtime) { context in try await connected(&context, connection) }
    }

    func disconnected(_ connection: ActorConn, state: ActorStateValue, runtime: ActorRuntime)
        async throws(ActorError) -> ActorStateValue
    {
        guard let disconnected else { return state }
        return try await withContext(state, runtime: runtime) { context in try await disconnected(&context, connection) }
    }

    /// Whether `after` is bit for bit `before` and `State` is a plain value, holding no
    /// references (numbers, booleans, enums and structs of those): then it encodes as `before`
    /// did, and an action that only read the state needs no encoding. A state holding
    /// references (strings, arrays, objects) is always encoded: an object it refers to may
    /// have changed behind equal bits.
    static func isPlainValue(_ after: State, bitwiseEqualTo before: State) -> Bool {
        guard _isPOD(State.self) else { return false }
        return withUnsafeBytes(of: after) { after in
            withUnsafeBytes(of: before) { before in after.elementsEqual(before) }
        }
    }

    /// What the client sees of an error: an ``ActorError`` as it is, anything else as an
    /// internal error without details.
    static func clientError(_ error: any Error) -> ActorError {
        if let error = error as? ActorError { return error }
        return ActorError(.rivetkitInternalError, "Internal error")
    }
}

/// An actor's state: its JSON (what the store holds) and, once an action ran, the typed value
/// it left, which the next action starts from instead of decoding the JSON again (as an actor
/// keeps its state in memory between actions; the JSON is what survives a restart).
struct ActorStateValue: Sendable {
    var json: JSONValue
    var typed: (any Sendable)?
}
