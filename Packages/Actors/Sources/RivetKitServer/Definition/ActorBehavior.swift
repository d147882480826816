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
    /// Runs action `name` on `state`; returns the new state and the output, on the caller's
    /// executor (a connection's event loop), with no hop of its own.
    nonisolated(nonsending) func perform(
        _ name: String, args: [JSONValue], state: ActorStateValue, connection: ActorConnectionInfo,
        broadcaster: ActorBroadcaster
    ) async throws(ActorError) -> (state: ActorStateValue, output: JSONValue)
    /// Runs the before-connect hook.
    func beforeConnect(_ connection: ActorConnectionInfo) async throws(ActorError)
    /// Runs the connect hook.
    func connected(_ connection: ActorConnectionInfo) async
    /// Runs the disconnect hook.
    func disconnected(_ connection: ActorConnectionInfo) async
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
        _ name: String, args: [JSONValue], state: ActorStateValue, connection: ActorConnectionInfo,
        broadcaster: ActorBroadcaster
    ) async throws(ActorError) -> (state: ActorStateValue, output: JSONValue) {
        guard let action = actions[name] else {
            throw ActorError(.actionNotFound, "the action \(name) does not exist")
        }
        let typed: State
        // A typed state left by the previous action is what `state.json` was encoded from.
        let cached: Bool
        if let decoded = state.typed as? State {
            typed = decoded
            cached = true
        } else {
            cached = false
            typed = try Self.decodeState(state.json)
        }
        var context = ActorContext(state: typed, connection: connection, broadcaster: broadcaster)
        let output: JSONValue
        do {
            output = try await action.run(&context, args)
        } catch {
            throw Self.clientError(error)
        }
        let json = cached && Self.isPlainValue(context.state, bitwiseEqualTo: typed)
            ? state.json : try ActorValueCoding.encode(context.state)
        // A class instance is shared with the action and may change after it: only values are kept.
        let keep: (any Sendable)? = State.self is AnyObject.Type ? nil : context.state
        return (ActorStateValue(json: json, typed: keep), output)
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

    func beforeConnect(_ connection: ActorConnectionInfo) async throws(ActorError) {
        guard let beforeConnect else { return }
        do {
            try await beforeConnect(connection)
        } catch {
            throw Self.clientError(error)
        }
    }

    func connected(_ connection: ActorConnectionInfo) async {
        await self.connected?(connection)
    }

    func disconnected(_ connection: ActorConnectionInfo) async {
        await self.disconnected?(connection)
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
