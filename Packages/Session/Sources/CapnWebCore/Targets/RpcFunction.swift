/// A Swift closure the peer can call, passed as a function stub.
///
/// ```swift
/// let double = RpcFunction { (x: Int) in x * 2 }
/// let result: Int = try await session.api.callback(double, 21)   // the server calls back
/// ```
public final class RpcFunction: RpcTarget {
    private let body: @Sendable (RpcArguments) async throws -> RpcPayload

    /// A function that receives the raw arguments and returns a raw value.
    public init(_ body: @escaping @Sendable (RpcArguments) async throws -> RpcPayload) {
        self.body = body
    }

    /// A function of no arguments returning an encodable value.
    public convenience init<Result: Encodable & SendableMetatype>(_ body: @escaping @Sendable () async throws -> Result) {
        self.init { (_: RpcArguments) in try RpcPayload(encoding: try await body()) }
    }

    /// A function of one decodable argument returning an encodable value.
    public convenience init<Argument: Decodable & SendableMetatype, Result: Encodable & SendableMetatype>(
        _ body: @escaping @Sendable (Argument) async throws -> Result
    ) {
        self.init { (arguments: RpcArguments) in
            try RpcPayload(encoding: try await body(try arguments.decode(0, as: Argument.self)))
        }
    }

    /// A function of two decodable arguments returning an encodable value.
    public convenience init<First: Decodable & SendableMetatype, Second: Decodable & SendableMetatype, Result: Encodable & SendableMetatype>(
        _ body: @escaping @Sendable (First, Second) async throws -> Result
    ) {
        self.init { (arguments: RpcArguments) in
            let first = try arguments.decode(0, as: First.self)
            let second = try arguments.decode(1, as: Second.self)
            return try RpcPayload(encoding: try await body(first, second))
        }
    }

    /// Runs the closure.
    public func invoke(with arguments: RpcArguments) async throws -> RpcPayload {
        try await body(arguments)
    }
}
