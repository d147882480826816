/// A typed stub `@RpcProtocol` generates: a struct over a ``Ref`` whose members read and call
/// the remote members of the same names.
///
/// A stub passed as an argument, or returned from an `@Rpc` method, travels as the reference
/// it holds.
public protocol RpcProtocolStub: Sendable, Encodable {
    /// The reference the stub's members build on: the escape hatch for dynamic calls.
    var ref: Ref<Any> { get }
    /// A stub over `ref`.
    init(ref: Ref<Any>)
}

extension RpcProtocolStub {
    /// A stub over `ref` typed for any remote value (`PStub(ref)` for a ref from a dynamic call).
    public init<T>(_ ref: Ref<T>) {
        self.init(ref: RpcStubSupport.erase(ref))
    }

    /// Encodes the reference the stub holds.
    public func encode(to encoder: any Encoder) throws {
        try ref.encode(to: encoder)
    }
}

extension RpcSession where API: RpcProtocolStub {
    /// The peer's main object as the stub `API` (for a session typed by a stub, `RpcSession<PStub>`).
    public nonisolated var api: API {
        let base: Ref<API> = self.api
        return API(ref: RpcStubSupport.erase(base))
    }
}
