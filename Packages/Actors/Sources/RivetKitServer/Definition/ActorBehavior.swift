import RivetKit

/// An actor type with its state type erased, as the server runs it: state travels as JSON
/// between the store and the typed actions.
protocol ActorBehavior: Sendable {
    /// The type's name.
    var name: String { get }
    /// The initial state, as JSON, for a creation input.
    func initialState(input: JSONValue?) async throws(ActorError) -> JSONValue
    /// Runs action `name` on `state`; returns the new state and the output.
    func perform(
        _ name: String, args: [JSONValue], state: JSONValue, connection: ActorConnectionInfo, broadcaster: ActorBroadcaster
    ) async throws(ActorError) -> (state: JSONValue, output: JSONValue)
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

    func perform(
        _ name: String, args: [JSONValue], state: JSONValue, connection: ActorConnectionInfo, broadcaster: ActorBroadcaster
    ) async throws(ActorError) -> (state: JSONValue, output: JSONValue) {
        guard let action = actions[name] else {
            throw ActorError(group: "action", code: "not_found", message: "the action \(name) does not exist")
        }
        let typed: State
        do {
            typed = try JSONValueDecoder().decode(State.self, from: state)
        } catch {
            throw ActorError(group: "rivetkit", code: "internal_error", message: "the stored state does not decode")
        }
        var context = ActorContext(state: typed, connection: connection, broadcaster: broadcaster)
        do {
            let output = try await action.run(&context, args)
            return (try ActorValueCoding.encode(context.state), output)
        } catch {
            throw Self.clientError(error)
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
        return ActorError(group: "rivetkit", code: "internal_error", message: "Internal error")
    }
}
