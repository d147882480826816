internal import CapnWeb
internal import RpcWire

/// One expression of `capnweb call`, as parsed from the command line.
///
/// Expressions are evaluated against the server's main object: a ``name(_:)`` is a bound name,
/// the parameter of an enclosing ``map(_:parameter:body:)``, `main`/`api` for the main object
/// itself, or else a member of the main object (`square(5)` calls `main.square(5)`). The parser
/// does not resolve names; the evaluator does, in that order.
indirect enum CallExpression: Sendable {
    /// A literal value: a number, string, boolean, `null`, `undefined`, bigint or date.
    case literal(RpcPayload)
    /// An array literal, `[a, b]`.
    case array([CallExpression])
    /// An object literal, `{key: value}`, with the members in source order (duplicates kept).
    case object([(String, CallExpression)])
    /// An identifier used as a value.
    case name(String)
    /// A property read, `base.name`.
    case member(CallExpression, String)
    /// A property read or element access with a literal key, `base["key"]` or `base[0]`.
    case index(CallExpression, CapnWebPathKey)
    /// A call, `callee(arguments...)`.
    case call(CallExpression, [CallExpression])
    /// `base.map(parameter => body)`: `body` runs for each element of `base` (or once on a
    /// non-array value), with `parameter` bound to it.
    case map(CallExpression, parameter: String, body: CallExpression)
}
