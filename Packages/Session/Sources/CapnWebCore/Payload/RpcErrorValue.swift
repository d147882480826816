/// An error as a value: what a target throws to choose the error the peer sees, and what a
/// rejection carries.
///
/// `name` is the JavaScript error name (`Error`, `TypeError`, `RangeError`, ... or any
/// application name such as `NotFound`); `properties` are extra members such as `code` or
/// `retryAfter`, sent as the error's props.
///
/// ```swift
/// throw RpcErrorValue(name: "NotFound", message: "no todo 7", properties: [.init("id", 7)])
/// ```
public struct RpcErrorValue: Error, Sendable, CustomStringConvertible {
    /// The error's name, e.g. `TypeError`.
    public var name: String
    /// The error's message.
    public var message: String
    /// The stack trace, when the sender chose to reveal one.
    public var stack: String?
    /// Extra properties (`cause`, `code`, ...), or `nil` when the error has none.
    public var properties: [RpcPayload.Member]?

    /// Creates an error value.
    public init(
        name: String = "Error", message: String, stack: String? = nil,
        properties: [RpcPayload.Member]? = nil
    ) {
        self.name = name
        self.message = message
        self.stack = stack
        self.properties = properties
    }

    /// The property named `key`, if present.
    public func property(_ key: String) -> RpcPayload? {
        properties?.last { $0.key == key }?.value
    }

    /// `Name: message`.
    public var description: String { "\(name): \(message)" }

    /// A `TypeError` saying that `path` is not a function, as the reference implementation words it.
    public static func notAFunction(_ path: String) -> RpcErrorValue {
        RpcErrorValue(name: "TypeError", message: "'\(path)' is not a function.")
    }
}
