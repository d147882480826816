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
public protocol RpcTarget: AnyObject, Sendable {
    /// Runs method `method`.
    ///
    /// Throw an ``RpcErrorValue`` to choose the error name, message and properties the caller
    /// sees; any other error reaches it as `Error` with the error's description.
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload
    /// Reads property `name`; return ``RpcPayload/undefined`` for a missing one.
    func property(_ name: String) async throws -> RpcPayload
    /// Runs the target itself as a function (a call with an empty path).
    func invoke(with arguments: RpcArguments) async throws -> RpcPayload
    /// Called once the last stub to this appearance of the target has been released.
    func dispose()
}

extension RpcTarget {
    /// Rejects with a `TypeError`, as calling a missing method does.
    public func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        throw RpcErrorValue.notAFunction(method)
    }

    /// Reads as `undefined`.
    public func property(_ name: String) async throws -> RpcPayload {
        .undefined
    }

    /// Rejects with a `TypeError`: a target is not a function unless it says so.
    public func invoke(with arguments: RpcArguments) async throws -> RpcPayload {
        throw RpcErrorValue.notAFunction("")
    }

    /// Does nothing.
    public func dispose() {}
}
