import RivetKit

/// The lifecycle hooks a definition may have that take only a context.
enum ActorLifecycleHook: Hashable, Sendable {
    /// `onCreate`: the first start, after the initial state.
    case create
    /// `onWake`: every start, after `createVars`.
    case wake
    /// `onSleep`: before an idle instance leaves memory.
    case sleep
    /// `onDestroy`: before the actor's state is removed.
    case destroy
}

extension ActorDefinition {
    /// Sets the type's options (sleep timeout, `noSleep`, action timeout).
    public func options(_ options: ActorDefinitionOptions) -> Self {
        var copy = self
        copy.options = options
        return copy
    }

    /// Makes the vars of each instance when it starts (created or woken), after `onCreate` and
    /// before `onWake`: values that live in memory only, such as caches or counters since the
    /// process started, read and written through the contexts' `vars`. They are never saved;
    /// a woken instance gets new ones.
    public func createVars<V: Sendable>(_ body: @escaping @Sendable (ActorLifecycleContext<State>) async throws -> V) -> Self {
        var copy = self
        copy.makeVars = { context in try await body(context) }
        return copy
    }

    /// Makes each connection's state from its parameters, decoded as `P` (JSON `null` when the
    /// client sent none), after `onBeforeConnect` and before `onConnect`. The state lives as
    /// long as the connection, read and written as ``ActorConn/state``.
    ///
    /// Parameters that do not decode as `P` refuse the connection with `request.invalid_params`.
    public func createConnState<P: Decodable & Sendable, S: Sendable>(
        _ body: @escaping @Sendable (ActorLifecycleContext<State>, P) async throws -> S
    ) -> Self {
        var copy = self
        copy.makeConnState = { context, info in
            let params: P
            do {
                params = try JSONValueDecoder().decode(P.self, from: info.params ?? .null)
            } catch {
                throw ActorError(.requestInvalidParams, "the connection parameters do not decode as \(P.self): \(error)")
            }
            return try await body(context, params)
        }
        return copy
    }

    /// Runs once, when the actor is created, after its initial state and before `createVars`;
    /// may change the state.
    public func onCreate(_ body: @escaping @Sendable (inout ActorLifecycleContext<State>) async throws -> Void) -> Self {
        adding(.create, body)
    }

    /// Runs every time an instance starts (created or woken), after `createVars`; may change
    /// the state. A throw fails the start: the request that woke the actor gets the error.
    public func onWake(_ body: @escaping @Sendable (inout ActorLifecycleContext<State>) async throws -> Void) -> Self {
        adding(.wake, body)
    }

    /// Runs when an idle instance is put to sleep, before it leaves memory; may change the
    /// state, which is saved.
    public func onSleep(_ body: @escaping @Sendable (inout ActorLifecycleContext<State>) async throws -> Void) -> Self {
        adding(.sleep, body)
    }

    /// Runs when the actor is destroyed, before its state is removed.
    public func onDestroy(_ body: @escaping @Sendable (inout ActorLifecycleContext<State>) async throws -> Void) -> Self {
        adding(.destroy, body)
    }

    /// Runs after an action or a hook changed the state, once that state is saved, with it.
    public func onStateChange(_ body: @escaping @Sendable (ActorLifecycleContext<State>, State) async -> Void) -> Self {
        var copy = self
        copy.stateChanged = body
        return copy
    }

    /// Runs before a connection (realtime or HTTP action) is accepted; throwing refuses it,
    /// and the client gets the error (an ``ActorError`` such as `auth.forbidden`).
    public func onBeforeConnect(_ body: @escaping @Sendable (ActorConnectionInfo) async throws -> Void) -> Self {
        onBeforeConnect { (_: ActorLifecycleContext<State>, connection: ActorConnectionInfo) in try await body(connection) }
    }

    /// Runs before a connection is accepted, with the actor's context (its state read-only);
    /// throwing refuses the connection with that error.
    public func onBeforeConnect(
        _ body: @escaping @Sendable (ActorLifecycleContext<State>, ActorConnectionInfo) async throws -> Void
    ) -> Self {
        var copy = self
        copy.beforeConnect = body
        return copy
    }

    /// Runs once a connection is accepted.
    public func onConnect(_ body: @escaping @Sendable (ActorConnectionInfo) async -> Void) -> Self {
        onConnect { (_: inout ActorLifecycleContext<State>, connection: ActorConn) in await body(connection.info) }
    }

    /// Runs once a connection is accepted and among the actor's connections, with its state
    /// made; may change the actor's state. Throwing refuses the connection with that error.
    public func onConnect(
        _ body: @escaping @Sendable (inout ActorLifecycleContext<State>, ActorConn) async throws -> Void
    ) -> Self {
        var copy = self
        copy.connected = body
        return copy
    }

    /// Runs when a connection has gone.
    public func onDisconnect(_ body: @escaping @Sendable (ActorConnectionInfo) async -> Void) -> Self {
        onDisconnect { (_: inout ActorLifecycleContext<State>, connection: ActorConn) in await body(connection.info) }
    }

    /// Runs when a connection has gone, before it leaves the actor's connections; may change
    /// the actor's state (a throw is reported and the change dropped).
    public func onDisconnect(
        _ body: @escaping @Sendable (inout ActorLifecycleContext<State>, ActorConn) async throws -> Void
    ) -> Self {
        var copy = self
        copy.disconnected = body
        return copy
    }

    private func adding(
        _ hook: ActorLifecycleHook, _ body: @escaping @Sendable (inout ActorLifecycleContext<State>) async throws -> Void
    ) -> Self {
        var copy = self
        copy.lifecycleHooks[hook] = body
        return copy
    }
}
