// The overloads the macros' expansions call. Each `@RpcProtocol` protocol `P` adds its own for
// `any P`; the compiler picks the one for the type written in the declaration, which is how a
// member of a protocol type yields a stub while a member of a data type sends and awaits.

/// A member of a `Decodable` type: awaits the value and decodes it.
public func _capnwebResult<T: Decodable>(_ type: T.Type, _ ref: Ref<Any>) async throws -> T {
    try await ref.resolved(as: T.self)
}

/// A member returning nothing: awaits its completion.
public func _capnwebResult(_ type: Void.Type, _ ref: Ref<Any>) async throws {
    _ = try await ref.payload()
}

/// A member of type `RpcPayload`: awaits the raw value.
public func _capnwebResult(_ type: RpcPayload.Type, _ ref: Ref<Any>) async throws -> RpcPayload {
    try await ref.payload()
}

/// A member of type ``Ref``: the reference at once, pipelined, without a round trip.
public func _capnwebResult<U>(_ type: Ref<U>.Type, _ ref: Ref<Any>) async throws -> Ref<U> {
    Ref<U>(RpcStub(ref))
}

/// A member returning a readable stream: its chunks decoded as `Element`.
public func _capnwebResult<Element: Decodable & Sendable>(
    _ type: AsyncThrowingStream<Element, any Error>.Type, _ ref: Ref<Any>
) async throws -> AsyncThrowingStream<Element, any Error> {
    guard case .readable(let stream) = try await ref.payload() else {
        throw RpcError.invalidResponse("the call did not return a stream")
    }
    return stream.decoded(as: Element.self)
}

/// A subscript of type ``Ref``: the reference it names.
public func _capnwebStub<U>(_ type: Ref<U>.Type, _ ref: Ref<Any>) -> Ref<U> {
    Ref<U>(RpcStub(ref))
}

/// An argument of a `Decodable` type (including ``Ref`` and ``RpcPayload``).
public func _capnwebArgument<T: Decodable>(
    _ type: T.Type, _ arguments: RpcArguments, _ index: Int, method: String, parameter: String
) throws -> T {
    try RpcTargetSupport.decode(T.self, arguments, index, method: method, parameter: parameter)
}

/// An `Encodable` value (including ``Ref``s and stubs, which travel as references).
public func _capnwebEncode<T: Encodable>(_ value: T) throws -> RpcPayload {
    try RpcPayload(encoding: value)
}

/// A raw value, as it is.
public func _capnwebEncode(_ value: RpcPayload) throws -> RpcPayload {
    value
}

/// Nothing: `undefined`.
public func _capnwebEncode(_ value: Void) throws -> RpcPayload {
    .undefined
}

/// A local object (an `@Rpc` actor or class): a new reference to it.
public func _capnwebEncode<T: RpcTarget>(_ value: T) throws -> RpcPayload {
    .stub(RpcStub(value))
}

/// A readable stream, as it is.
public func _capnwebEncode(_ value: RpcReadableStream) throws -> RpcPayload {
    .readable(value)
}

/// An `AsyncSequence` of `Encodable` elements: a readable stream the peer reads chunk by chunk.
/// The sequence is read as the peer reads, in the task that reads the stream (no task of its own
/// reads ahead), and no further once the stream is cancelled.
public func _capnwebEncode<S: AsyncSequence & Sendable>(_ value: S) throws -> RpcPayload
where S.Element: Encodable & Sendable {
    let reader = PulledSequence(value) { element in try RpcPayload(encoding: element) }
    return .readable(RpcReadableStream(AsyncThrowingStream(unfolding: { try await reader.next() })))
}
