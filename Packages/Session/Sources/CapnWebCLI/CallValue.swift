internal import CapnWeb

/// What a `capnweb call` expression evaluates to: a reference to a remote (or pipelined) value,
/// or a plain value built on this side from literals.
enum CallValue: Sendable {
    /// A reference: the main object, a member path into it, or a call's pipelined result.
    case ref(Ref<Any>)
    /// A value built here: a literal, or an array or object literal (whose elements may hold
    /// references as stubs).
    case payload(RpcPayload)

    /// The value as a call argument or a map result: a reference travels as its stub.
    var payload: RpcPayload {
        switch self {
        case .ref(let ref): .stub(RpcStub(ref))
        case .payload(let payload): payload
        }
    }

    /// The value of a payload, with a bare stub turned back into a reference so that members
    /// and calls can pipeline on it.
    init(_ payload: RpcPayload) {
        if case .stub(let stub) = payload {
            self = .ref(Ref<Any>(stub))
        } else {
            self = .payload(payload)
        }
    }
}
