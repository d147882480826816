internal import RpcWire

/// What an evaluated expression asks for, computed under the session's mutex and run after it
/// is released: the operations (calls, maps) found inside, in order, then the top-level one.
enum PushPlan: Sendable {
    /// One operation on a hook: a call, a property read or a map.
    struct Operation: Sendable {
        enum Kind: Sendable {
            case call([RpcPayload])
            case get
            case map(MapRecording)
        }

        let base: any StubHook
        let path: [CapnWebPathKey]
        let kind: Kind

        func apply() -> any StubHook {
            switch kind {
            case .call(let arguments): base.call(path, arguments)
            case .get: base.get(path)
            case .map(let recording): base.map(path, recording)
            }
        }
    }

    /// An operation nested in a value; its result settles `placeholder`.
    struct Deferred: Sendable {
        let placeholder: LocalPromiseHook
        let operation: Operation
    }

    /// The expression was a call, property read or map at the top level.
    case operation(Operation, deferred: [Deferred])
    /// The expression was a value (possibly holding stubs and promises).
    case value(RpcPayload, deferred: [Deferred])

    /// Runs the nested operations in order.
    func runDeferred() {
        let deferred: [Deferred]
        switch self {
        case .operation(_, let nested), .value(_, let nested): deferred = nested
        }
        for item in deferred {
            item.placeholder.adopt(item.operation.apply())
        }
    }

    /// Runs everything and returns the hook for the result.
    func run() -> any StubHook {
        runDeferred()
        switch self {
        case .operation(let operation, _): return operation.apply()
        case .value(let value, _): return PayloadHook(value)
        }
    }
}
