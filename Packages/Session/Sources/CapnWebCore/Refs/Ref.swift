internal import RpcWire

/// A reference to a remote value that may not exist yet: the heart of promise pipelining.
///
/// Member access, subscripts and calls build on the reference without waiting and without
/// sending anything: a call leaves when its result is awaited, when a call that uses it (as an
/// argument, or as the base of a pipelined call or member) leaves, or when ``sendNow()`` sends
/// it. It then leaves once, after the calls it is based on, pipelined on their results, so a
/// whole chain costs one round trip. A ref that is built and dropped sends nothing (the
/// compiler warns about an unused one).
///
/// ```swift
/// let name: String = try await session.api.getUser(42).profile.displayName
/// let counter = session.api.makeCounter(10)          // Ref<Any>, not sent yet
/// let value: Int = try await counter.increment(5)      // both calls leave now, pipelined
/// ```
///
/// Awaiting: write the expected type (`let n: Int = try await ref.square(5)`, which picks the
/// awaiting overload of the last member or call), or call ``resolved(as:)`` on a ref you hold.
/// Swift cannot `await` a value that is not a call or a member read, so `try await ref` alone
/// is not available.
///
/// Members named like `Ref`'s own methods (`map`, `resolved`, `payload`, `settle`, `onBroken`)
/// are reached with `ref[dynamicMember: "map"]`. Labels are dropped on the wire:
/// `todos.get(id: 1)` sends `[1]`.
///
/// When the last copy of a ref goes away, the session releases what it held on the peer.
@dynamicMemberLookup
@dynamicCallable
public struct Ref<T>: Sendable {
    let stub: RpcStub

    @usableFromInline
    init(stub: RpcStub) {
        self.stub = stub
    }

    /// A reference to a local target, to pass to the peer or to call locally.
    public init(_ target: some RpcTarget) {
        self.init(stub: RpcStub(target))
    }

    /// A reference through an untyped stub.
    public init(_ stub: RpcStub) {
        self.init(stub: stub)
    }

    /// The same reference typed as `T` (nothing is sent): for example a member read typed as a
    /// stream, to iterate, `Ref<AsyncThrowingStream<Message, any Error>>(api.chat.messages)`.
    /// (Writing the type on the declaration instead, `let m: Ref<…> = api.chat.messages`, picks
    /// the overload that awaits the member, as `Ref` is `Decodable`.)
    public init<U>(_ ref: Ref<U>) {
        self.init(stub: ref.stub)
    }

    private func appending(_ key: CapnWebPathKey) -> RpcStub {
        // Appended in place: `path + [key]` would allocate the one-element array as well.
        var path = stub.path
        path.append(key)
        return RpcStub(hook: stub.hook, path: path, awaitsDelivery: stub.awaitsDelivery)
    }

    // MARK: Members and subscripts

    /// The member `member` (no network traffic until awaited or called).
    public subscript(dynamicMember member: String) -> Ref<Any> {
        Ref<Any>(stub: appending(.property(member)))
    }

    /// The member `member`, typed by the context.
    public subscript<U>(dynamicMember member: String) -> Ref<U> {
        Ref<U>(stub: appending(.property(member)))
    }

    /// The member `member`, awaited and decoded as the expected type.
    nonisolated(nonsending) public subscript<U: Decodable>(dynamicMember member: String) -> U {
        get async throws {
            try await Ref<Any>(stub: appending(.property(member))).resolved(as: U.self)
        }
    }

    /// The member named `key` (`todos["123"]`).
    public subscript(key: String) -> Ref<Any> {
        Ref<Any>(stub: appending(.property(key)))
    }

    /// The member named `key`, typed by the context.
    public subscript<U>(key: String) -> Ref<U> {
        Ref<U>(stub: appending(.property(key)))
    }

    /// The element at `index` of a remote array (sent as a number).
    public subscript(index: Int) -> Ref<Any> {
        Ref<Any>(stub: appending(.index(Int64(index))))
    }

    /// The element at `index`, typed by the context.
    public subscript<U>(index: Int) -> Ref<U> {
        Ref<U>(stub: appending(.index(Int64(index))))
    }

    // MARK: Calls

    /// Calls the referenced function with the arguments in order (labels are dropped). The call
    /// leaves when the result is awaited, used by a call that leaves, or sent with
    /// ``sendNow()``; the result is a ref to pipeline on or await.
    public func dynamicallyCall(withKeywordArguments arguments: KeyValuePairs<String, any Sendable>) -> Ref<Any> {
        Ref<Any>(stub: call(arguments))
    }

    /// Calls the referenced function; the result is typed by the context.
    public func dynamicallyCall<R>(withKeywordArguments arguments: KeyValuePairs<String, any Sendable>) -> Ref<R> {
        Ref<R>(stub: call(arguments))
    }

    /// Calls the referenced function and awaits its result as the expected type.
    ///
    /// Inlinable, like ``resolved(as:)``, so that decoding the result is specialised for `R` where
    /// the call is written.
    @inlinable
    nonisolated(nonsending) public func dynamicallyCall<R: Decodable>(
        withKeywordArguments arguments: KeyValuePairs<String, any Sendable>
    ) async throws -> R {
        try await Ref<Any>(stub: call(arguments, awaited: true)).resolved(as: R.self)
    }

    /// Calls the referenced function, which returns a readable stream, and yields its chunks
    /// decoded as the expected element type.
    nonisolated(nonsending) public func dynamicallyCall<Element: Decodable & Sendable>(
        withKeywordArguments arguments: KeyValuePairs<String, any Sendable>
    ) async throws -> AsyncThrowingStream<Element, any Error> {
        let result = Ref<Any>(stub: call(arguments))
        guard case .readable(let stream) = try await result.payload() else {
            throw RpcError.invalidResponse("the call did not return a stream")
        }
        return stream.decoded(as: Element.self)
    }

    /// Calls the referenced function with argument values; like a dynamic call, it leaves when
    /// its result is needed or ``sendNow()`` sends it.
    public func call(_ arguments: [RpcPayload]) -> Ref<Any> {
        Ref<Any>(stub: send(arguments))
    }

    /// The stub of a call with the values of `pairs` as its arguments (labels are dropped),
    /// converted straight from the pairs. `awaited` says the result is awaited at once, so a
    /// remote call asks for it in the same flush.
    @usableFromInline
    func call(_ pairs: KeyValuePairs<String, any Sendable>, awaited: Bool = false) -> RpcStub {
        var arguments: [RpcPayload] = []
        arguments.reserveCapacity(pairs.count)
        for (_, value) in pairs {
            do {
                arguments.append(try ArgumentConversion.payload(value))
            } catch {
                return RpcStub(hook: ErrorHook(.failed(error)))
            }
        }
        return send(arguments, awaited: awaited)
    }

    /// The stub of a call with `arguments`, recorded when a `map` closure is being recorded.
    ///
    /// A call that is not awaited at once is deferred: nothing leaves until the result is
    /// awaited, used by a call that leaves, or sent with ``sendNow()``.
    private func send(_ arguments: [RpcPayload], awaited: Bool = false) -> RpcStub {
        if let recorder = MapRecorder.recording {
            return recorder.recordCall(stub, arguments)
        }
        guard awaited else {
            return RpcStub(hook: DeferredCallHook(base: stub.hook, path: stub.path, operation: .call(arguments)))
        }
        if stub.hook is DeferredCallHook {
            // The chain below leaves with this call, in one flush.
            let call = DeferredCallHook(base: stub.hook, path: stub.path, operation: .call(arguments))
            return RpcStub(hook: call.dispatch(awaited: true))
        }
        return RpcStub(hook: stub.hook.callAwaited(stub.path, DeferredCallHook.dispatchingArguments(arguments)))
    }

    // MARK: Sending

    /// Sends the call this ref stands for now, without waiting for its result (fire and
    /// forget), together with the calls it is based on; does nothing if it has left already.
    ///
    /// Building a ref sends nothing: a call leaves when its result is awaited, when it is passed
    /// to (or pipelined on by) a call that leaves, or when this method sends it. A ref that is
    /// built and dropped never reaches the peer. Awaiting the ref afterwards does not send the
    /// call again.
    ///
    /// ```swift
    /// session.api.log("started").sendNow()                 // leaves now, result ignored
    /// let counter = session.api.makeCounter(10).sendNow()   // leaves now, awaited later
    /// let value: Int = try await counter.value
    /// ```
    @discardableResult
    public func sendNow() -> Ref<T> {
        // The ref keeps its deferred hook, which forwards to what was sent: an HTTP batch asks
        // for the result of every call it still holds when its request leaves.
        if let deferred = stub.hook as? DeferredCallHook {
            _ = deferred.dispatch()
            deferred.batch?.registerSentEarly(deferred)
        }
        return self
    }

    // MARK: Awaiting

    /// Awaits the value and decodes it as `type`.
    ///
    /// - Throws: ``RpcError``: `.remote` for a rejection, `.connectionLost` when the session
    ///   ended first, `.timeout`, `.cancelled`, or `.invalidResponse` when the value does not
    ///   decode.
    @inlinable
    nonisolated(nonsending) public func resolved<V: Decodable>(as type: V.Type = V.self) async throws(RpcError) -> V {
        try await payload().decode(V.self)
    }

    /// Awaits the value as a payload, with every promise inside it substituted.
    nonisolated(nonsending) public func payload() async throws(RpcError) -> RpcPayload {
        switch await settle() {
        case .resolved(let value): return value
        case .rejected(let value): throw Rejection.thrown(.error(value)).rpcError
        case .failed(let error): throw error
        }
    }

    /// Awaits the outcome without throwing: the value, the error value the peer rejected with
    /// (with its properties), or a local failure.
    nonisolated(nonsending) public func settle() async -> RpcOutcome {
        var base = stub.hook
        if let deferred = base as? DeferredCallHook {
            // The call leaves now (asking for its result at once when it is the value awaited).
            base = deferred.dispatch(awaited: stub.path.isEmpty)
        }
        let hook = stub.path.isEmpty ? base : base.get(stub.path)
        let settlement = await hook.settled(deadlines: (base as? ImportHook)?.core.deadlines)
        do {
            let value = try settlement.get()
            return .resolved(try await Substitution.resolve(value))
        } catch {
            switch error {
            case .thrown(.error(let value)): return .rejected(value)
            case .thrown(let other): return .rejected(RpcErrorValue(message: PayloadText.describe(other)))
            case .failed(let failure): return .failed(failure)
            }
        }
    }

    // MARK: Map

    /// Applies `transform` to the value (to each element when it is an array) on the peer, in
    /// the same round trip. `transform` runs once, here, to record what to do: it may call
    /// methods on its argument and on other refs, read members, and build its result from
    /// them, but it cannot await.
    ///
    /// ```swift
    /// let squares: [Int] = try await api.generateFibonacci(6).map { api.square($0) }.resolved()
    /// ```
    public func map<U>(_ transform: (Ref<Any>) -> Ref<U>) -> Ref<[U]> {
        Ref<[U]>(stub: record { input in .stub(transform(input).stub) })
    }

    /// Like ``map(_:)``, for a `transform` that builds a value (for example an object whose
    /// members are refs): `api.fib(3).remap { x in ["x": .stub(RpcStub(x))] }`.
    public func remap(_ transform: (Ref<Any>) -> RpcPayload) -> Ref<[Any]> {
        Ref<[Any]>(stub: record(transform))
    }

    private func record(_ transform: (Ref<Any>) -> RpcPayload) -> RpcStub {
        let parent = MapRecorder.current
        let recorder = MapRecorder(parent: parent)
        let result = MapRecorder.whileRecording(with: recorder) {
            transform(Ref<Any>(stub: recorder.input))
        }
        let recording = recorder.finish(returning: result)
        if let parent {
            return parent.recordMap(stub, recording)
        }
        return RpcStub(hook: DeferredCallHook(base: stub.hook, path: stub.path, operation: .map(recording)))
    }

    // MARK: Breakage

    /// Runs `handler` once if the session ends while this ref is held (on connection loss or
    /// abort), with the error later calls fail with.
    public func onBroken(_ handler: @escaping @Sendable (RpcError) -> Void) {
        let hook = (stub.hook as? DeferredCallHook)?.underlyingHook ?? stub.hook
        if let imported = hook as? ImportHook {
            imported.core.onBroken(handler)
        } else if let main = hook as? SessionMainHook {
            main.onBroken(handler)
        }
    }
}

/// How a call ended, without throwing.
public enum RpcOutcome: Sendable {
    /// The value, with every promise inside substituted.
    case resolved(RpcPayload)
    /// The peer (or a local target) rejected with this error value.
    case rejected(RpcErrorValue)
    /// A local failure: the session ended, a timeout, a cancellation.
    case failed(RpcError)
}

/// A value that stands for a stub when passed as an argument.
protocol StubConvertible {
    var rpcStub: RpcStub { get }
}

extension Ref: StubConvertible {
    var rpcStub: RpcStub { stub }
}

/// Turns call arguments into payloads.
enum ArgumentConversion {
    static func payload(_ value: any Sendable) throws(RpcError) -> RpcPayload {
        // Concrete types first: a cast to a concrete type compares metadata, while a cast to a
        // protocol looks the conformance up, which costs far more on every call.
        switch value {
        case let string as String: return .string(string)
        case let integer as Int: return .integer(Int64(integer))
        case let number as Double: return .double(number)
        case let flag as Bool: return .bool(flag)
        case let payload as RpcPayload: return payload
        case let stub as RpcStub: return .stub(stub)
        case let convertible as any StubConvertible: return .stub(convertible.rpcStub)
        case let target as any RpcTarget: return .stub(RpcStub(hook: TargetHook(target)))
        case let readable as RpcReadableStream: return .readable(readable)
        case let writable as RpcWritableStream: return .writable(writable)
        case let encodable as any Encodable: return try RpcPayload(encoding: encodable)
        default:
            throw .rejectedLocally("\(type(of: value)) is neither Encodable, a ref, a target nor a stream")
        }
    }
}
