public import RpcWire

/// An error as RivetKit reports it: a `group` and a `code` that together identify it, a
/// human-readable message and optional JSON metadata.
///
/// Errors an actor throws reach the client with the actor's group and code (for example
/// `user` / `test_error`); the client's own errors use the group `client` (`config_error`,
/// `decode_error`, `connection_open_failed`, ...); protocol errors use RivetKit's groups
/// (`message`, `action`, `actor`, `request`, ...).
///
/// ```swift
/// do {
///     let _: Int = try await counter.action("fail")
/// } catch let error as ActorError where error.group == "user" {
///     print(error.code, error.message)
/// }
/// ```
public struct ActorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error's group, such as `user`, `actor` or `client`.
    public var group: String
    /// The error's code within its group, such as `not_found`.
    public var code: String
    /// A human-readable description.
    public var message: String
    /// Structured details, when the thrower gave any.
    public var metadata: JSONValue?

    /// Creates an error.
    public init(group: String, code: String, message: String = "", metadata: JSONValue? = nil) {
        self.group = group
        self.code = code
        self.message = message
        self.metadata = metadata
    }

    /// `group.code: message`.
    public var description: String {
        message.isEmpty ? "\(group).\(code)" : "\(group).\(code): \(message)"
    }
}

extension ActorError {
    /// A frame or body that does not follow RivetKit's protocol (`message.malformed`).
    public static func malformed(_ message: String) -> ActorError {
        ActorError(.messageMalformed, message)
    }
}
