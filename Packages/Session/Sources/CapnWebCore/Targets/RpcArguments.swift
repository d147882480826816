/// The arguments of a call, in order, with typed accessors.
///
/// A missing argument reads as `undefined`, like a JavaScript parameter that was not passed.
public struct RpcArguments: Sendable, RandomAccessCollection {
    /// The argument values.
    public var values: [RpcPayload]

    /// Wraps argument values.
    public init(_ values: [RpcPayload]) {
        self.values = values
    }

    /// The first index.
    public var startIndex: Int { values.startIndex }
    /// One past the last index.
    public var endIndex: Int { values.endIndex }

    /// The argument at `position`.
    public subscript(position: Int) -> RpcPayload { values[position] }

    /// The argument at `index`, or `undefined` when fewer were passed.
    public func value(at index: Int) -> RpcPayload {
        values.indices.contains(index) ? values[index] : .undefined
    }

    /// Decodes the argument at `index`.
    ///
    /// - Throws: An ``RpcErrorValue`` named `TypeError` when the argument does not fit `type`.
    @inlinable
    public func decode<T: Decodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        do {
            return try value(at: index).decode(T.self)
        } catch {
            throw RpcErrorValue(
                name: "TypeError", message: "argument \(index) is not a valid \(T.self): \(error)")
        }
    }

    /// Decodes the argument at `index`, or returns `defaultValue` when it is missing,
    /// `undefined` or `null`.
    @inlinable
    public func decode<T: Decodable>(_ index: Int, default defaultValue: T) throws -> T {
        if value(at: index).isNullish { return defaultValue }
        return try decode(index, as: T.self)
    }

    /// The stub passed at `index`.
    ///
    /// - Throws: An ``RpcErrorValue`` named `TypeError` when the argument is not a stub.
    public func stub(_ index: Int) throws -> RpcStub {
        guard case .stub(let stub) = value(at: index) else {
            throw RpcErrorValue(name: "TypeError", message: "argument \(index) is not a stub")
        }
        return stub
    }
}
