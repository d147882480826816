/// What the stubs `@RpcProtocol` generates call: member paths and calls on a ``Ref``, and
/// argument values. Not meant to be called directly.
public enum RpcStubSupport {
    /// `ref` typed for any remote value.
    public static func erase<T>(_ ref: Ref<T>) -> Ref<Any> {
        Ref<Any>(RpcStub(ref))
    }

    /// The member `name` of `ref` (no traffic).
    public static func member(_ ref: Ref<Any>, _ name: String) -> Ref<Any> {
        let member: Ref<Any> = ref[name]
        return member
    }

    /// The member named `key` of `ref` (no traffic).
    public static func element(_ ref: Ref<Any>, _ key: String) -> Ref<Any> {
        let member: Ref<Any> = ref[key]
        return member
    }

    /// The element at `index` of `ref` (no traffic).
    public static func element(_ ref: Ref<Any>, _ index: Int) -> Ref<Any> {
        let element: Ref<Any> = ref[index]
        return element
    }

    /// A call of method `name` of `ref` with `arguments` in order, pipelined on `ref`.
    public static func call(_ ref: Ref<Any>, _ name: String, _ arguments: [RpcPayload]) -> Ref<Any> {
        member(ref, name).call(arguments)
    }

    /// `value` sent to the peer: a stub's reference, or a local target (an `@Rpc` object
    /// conforming to the protocol) as a new reference.
    ///
    /// - Throws: ``RpcError/remote(type:message:)`` named `TypeError` for a value that is
    ///   neither.
    public static func payload(ofAny value: Any) throws(RpcError) -> RpcPayload {
        if let stub = value as? any RpcProtocolStub {
            return .stub(RpcStub(stub.ref))
        }
        if let target = value as? any RpcTarget {
            return .stub(RpcStub(target))
        }
        throw RpcError.remote(
            type: "TypeError",
            message: "\(type(of: value)) is neither a stub nor an RpcTarget and cannot be passed to the peer")
    }
}
