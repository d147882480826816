/// A local object the peer can call: the main object a server exposes, a callback passed as an
/// argument, or an object returned from a call.
///
/// Implement ``call(_:with:)`` and ``property(_:)`` by switching on the name; anything not
/// handled falls through to the defaults, which answer like the reference implementation (a
/// missing property reads as `undefined`, calling a missing method rejects with a `TypeError`).
/// Names every JavaScript object inherits (`constructor`, `toString`, `__proto__`, ...) never
/// reach the target.
///
/// ```swift
/// final class Calculator: RpcTarget {
///     func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
///         switch method {
///         case "square":
///             let n = try arguments.decode(0, as: Double.self)
///             return .double(n * n)
///         default:
///             throw RpcErrorValue.notAFunction(method)
///         }
///     }
/// }
/// ```
///
/// Calls reach a target in the order the peer made them; the target is free to run them
/// concurrently. ``dispose()`` runs once when the last stub to this appearance of the target is
/// released, locally and by the peer.
///
/// A method that never suspends can be answered from ``callImmediately(_:with:)`` instead, and
/// a property from ``propertyImmediately(_:)``: the session runs them on the thread that
/// delivers the call and answers without starting a task, which saves a task's creation and
/// completion per call on a connection's event loop. A service object read from a property and
/// then called (`api.todos.list()`) is the common case for both.
public protocol RpcTarget: AnyObject, Sendable {
    /// Runs method `method`.
    ///
    /// Throw an ``RpcErrorValue`` to choose the error name, message and properties the caller
    /// sees; any other error reaches it as `Error` with the error's description.
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload
    /// Runs method `method` at once, without suspending, if it is one that can: return its
    /// result, or `nil` (having done nothing) to have the call go to ``call(_:with:)``.
    ///
    /// The session asks this first for every call, once the call's arguments are settled, on
    /// the thread that delivers the call (for a call from the peer, the connection's event
    /// loop, so it must not block). Errors are thrown as from ``call(_:with:)``. The default
    /// returns `nil`.
    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload?
    /// Reads property `name`; return ``RpcPayload/undefined`` for a missing one.
    func property(_ name: String) async throws -> RpcPayload
    /// Reads property `name` at once, without suspending, if it is one that can be: return its
    /// value, or `nil` (having done nothing) to have the read go to ``property(_:)``.
    ///
    /// Like ``callImmediately(_:with:)``, it runs on the thread that delivers the read and must
    /// not block. The default returns `nil`.
    func propertyImmediately(_ name: String) throws -> RpcPayload?
    /// Runs the target itself as a function (a call with an empty path).
    func invoke(with arguments: RpcArguments) async throws -> RpcPayload
    /// Called once the last stub to this appearance of the target has been released.
    func dispose()
}

extension RpcTarget {
    /// Answers from ``callImmediately(_:with:)``, so that a target implementing only that
    /// answers code calling it directly too; otherwise rejects with a `TypeError`, as calling a
    /// missing method does.
    public func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        if let value = try callImmediately(method, with: arguments) { return value }
        throw RpcErrorValue.notAFunction(method)
    }

    /// Returns `nil`: every method goes to ``call(_:with:)``.
    public func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        nil
    }

    /// Returns `nil`: every property goes to ``property(_:)``.
    public func propertyImmediately(_ name: String) throws -> RpcPayload? {
        nil
    }

    /// Reads from ``propertyImmediately(_:)``, so that a target implementing only that answers
    /// code reading it directly too; otherwise reads as `undefined`.
    public func property(_ name: String) async throws -> RpcPayload {
        try propertyImmediately(name) ?? .undefined
    }

    /// Rejects with a `TypeError`: a target is not a function unless it says so.
    public func invoke(with arguments: RpcArguments) async throws -> RpcPayload {
        throw RpcErrorValue.notAFunction("")
    }

    /// Does nothing.
    public func dispose() {}
}
