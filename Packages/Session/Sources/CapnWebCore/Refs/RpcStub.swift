internal import RpcWire

/// An untyped capability: a remote object, a property path into one, a local ``RpcTarget`` or
/// a function, as it travels inside an ``RpcPayload``.
///
/// Stubs are reference-counted with the stub values themselves: when the last copy of a stub
/// to a remote object goes away, the session tells the peer to release it. Use ``Ref`` to call
/// through a stub.
public struct RpcStub: Sendable {
    let hook: any StubHook
    let path: [CapnWebPathKey]
    /// Set on values received as promises: they are awaited and replaced by their values
    /// before the payload reaches application code.
    let awaitsDelivery: Bool

    init(hook: any StubHook, path: [CapnWebPathKey] = [], awaitsDelivery: Bool = false) {
        self.hook = hook
        self.path = path
        self.awaitsDelivery = awaitsDelivery
    }

    /// A stub for a local target, to pass to the peer as an argument or a result.
    public init(_ target: some RpcTarget) {
        self.init(hook: TargetHook(target))
    }

    /// The stub behind a ``Ref``.
    public init<T>(_ ref: Ref<T>) {
        self = ref.stub
    }

    /// Whether both stubs are the same reference (same object and path).
    public func isSameReference(as other: RpcStub) -> Bool {
        hook === other.hook && path == other.path
    }
}
