internal import RpcWire

/// What a stub or promise points at: a remote entry, a local target, a local promise, a settled
/// value or an error.
///
/// Operations never block and never call back while a caller's lock is held: a call or a
/// property read returns a new hook at once (usually a promise), and ``whenSettled(_:)`` calls
/// its body exactly once, possibly synchronously.
protocol StubHook: AnyObject, Sendable {
    /// Calls the function at `path` with `arguments`; the result is a promise hook.
    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook
    /// ``call(_:_:)`` for a result that is awaited at once: a remote call asks for its result
    /// in the same round of messages (`push` and `pull` together).
    func callAwaited(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook
    /// Reads the property at `path`; the result is a promise hook.
    func get(_ path: [CapnWebPathKey]) -> any StubHook
    /// Applies a recorded `map` to the value at `path`; the result is a promise hook.
    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook
    /// Calls `body` once with the settled value: a promise's resolution, or the stub itself
    /// for a capability. For a remote promise the first registration asks the peer for it.
    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void)
    /// ``whenSettled(_:)`` resuming `waiter`: hooks that keep waiters keep it as it is, without
    /// a closure around it.
    func whenSettled(resuming waiter: SettlementWaiter)
    /// ``whenSettled(_:)`` sending the settlement to the peer as the answer to export `id` of
    /// `core`: hooks that keep listeners keep the pair, without a closure around it.
    func whenSettled(answering id: Int64, of core: SessionCore)
    /// Whether this hook is a promise (settles later) rather than a capability.
    var isPromise: Bool { get }
    /// The value this hook holds here, settled or being computed, that a push's result keeps
    /// alive; `nil` for hooks that hold none of their own (targets, remote entries).
    var heldResult: HeldResult? { get }
}

/// The outcome of a promise.
typealias Settlement = Result<RpcPayload, Rejection>

/// Why a promise failed: a value the peer or a target threw, or a local failure.
enum Rejection: Error, Sendable {
    /// A thrown value (normally an error value).
    case thrown(RpcPayload)
    /// A local failure: the session ended, a timeout, a cancellation, a bad value.
    case failed(RpcError)

    /// The rejection as the error a Swift caller sees.
    var rpcError: RpcError {
        switch self {
        case .failed(let error):
            return error
        case .thrown(.error(let value)):
            return .remote(type: value.name, message: value.message)
        case .thrown(let other):
            return .remote(type: "Error", message: PayloadText.describe(other))
        }
    }

    /// The rejection as a value for the wire.
    var wireValue: RpcPayload {
        switch self {
        case .thrown(let value):
            return value
        case .failed(.remote(let type, let message)):
            return .error(RpcErrorValue(name: type, message: message))
        case .failed(let error):
            return .error(RpcErrorValue(name: "Error", message: error.description))
        }
    }

    /// Turns anything a target threw into a rejection.
    init(_ error: any Error) {
        switch error {
        case let value as RpcErrorValue:
            self = .thrown(.error(value))
        case let rpc as RpcError:
            if case .remote(let type, let message) = rpc {
                self = .thrown(.error(RpcErrorValue(name: type, message: message)))
            } else {
                self = .failed(rpc)
            }
        case let rejection as Rejection:
            self = rejection
        default:
            self = .thrown(.error(RpcErrorValue(name: "Error", message: String(describing: error))))
        }
    }
}

extension StubHook {
    var heldResult: HeldResult? { nil }

    func callAwaited(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        call(path, arguments)
    }

    func whenSettled(resuming waiter: SettlementWaiter) {
        whenSettled { settlement in waiter.resume(settlement) }
    }

    func whenSettled(answering id: Int64, of core: SessionCore) {
        whenSettled { settlement in core.answer(id, settlement) }
    }

    /// Waits for the settled value from async code.
    ///
    /// Cancelling the waiting task resumes it with ``RpcError/cancelled``; the registration is
    /// then ignored when the value arrives. With `deadlines`, the wait fails with
    /// ``RpcError/timeout`` once the session's call timeout has passed.
    func settled(
        deadlines: CallDeadlines? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async -> Settlement {
        // Both closures capture `isolation`, so they run where the caller runs (a closure that
        // did not would run on the cooperative pool): the pull is written, and the caller
        // resumed, without a hop between threads.
        let waiter = SettlementWaiter()
        let registration = deadlines?.register(waiter)
        defer { if let registration { deadlines?.finished(registration) } }
        return await withTaskCancellationHandler(
            operation: {
                await withUnsafeContinuation(isolation: isolation) { continuation in
                    waiter.install(continuation)
                    whenSettled(resuming: waiter)
                }
            },
            onCancel: {
                waiter.resume(.failure(.failed(.cancelled)))
            },
            isolation: isolation
        )
    }
}
