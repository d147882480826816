/// A value passed as an argument of a call on an ``RpcRef``: a ref (resolved on the server, in
/// the same round trip), an ``RpcValue``, any `Encodable` value, or `nil` (sent as `null`).
///
/// It is also what a member read, subscript or call gives where an argument is expected, so that
/// `api.profiles.forUser(userId: authed.currentUser.id)` passes the ref, not its awaited value.
public typealias RpcArgument = (any Sendable)?

/// A lazy reference to a remote value: member reads, subscripts and calls build an expression
/// without any network traffic, and awaiting sends the whole chain at once, pipelined, in one
/// round trip.
///
/// ```swift
/// let name: String = try await client.api.users.get(id: "123").profile.displayName
/// let result = try await api.echo(message: "Hello")     // an RpcValue
/// try await client.api.users.delete(id: "123")          // sent; the answer is discarded
/// let ref: RpcRef<Any> = client.api.users.get(id: "123").profile.displayName
/// print(ref.expressionString)                           // .users.get(id: "123").profile.displayName
/// let same: String = try await ref.resolved()
/// ```
///
/// **What a member read, subscript or call gives.** Each one has overloads; Swift picks one from
/// the expected type, and an awaited expression always sends:
///
/// | Written as | Gives |
/// |---|---|
/// | `let n: Int = try await api.count()` (any `Decodable` type) | the decoded answer |
/// | `let r = try await api.echo(message: "hi")`, `async let u = api.users.current`, `print(try await ref.name)` | the answer as an ``RpcValue`` |
/// | `try await api.users.delete(id: "1")` (a statement) | sends it; the answer is discarded |
/// | `let s: AsyncThrowingStream<Event, any Error> = try await api.events.subscribe()` | the stream |
/// | `for try await m: Message in chat.messages` (a member holding a stream) | an ``RpcStream``, sent when read |
/// | `let ref: RpcRef<Any> = api.users.get(id: "1").profile` (or `RpcRef<Profile>`) | a ref, nothing sent |
/// | `api.users.get(id: "1").profile` (the base of a further read or call) | a ref |
/// | `api.profiles.forUser(userId: authed.currentUser.id)`, `api.f(x: api.g())` (as an argument) | a ref, resolved on the server |
/// | `.map { user in client.api.profiles.forUser(userId: user.id) }` (what a map returns) | a ref |
///
/// In async code an expression with no expected type is the answer, so it must be awaited:
/// `let ref = api.users.get(id: "1").profile` without `await` does not compile there ("expression
/// is 'async' but is not marked with 'await'"). To hold a ref without sending, write its type
/// (`let ref: RpcRef<Any> = …`). In synchronous code a call with no expected type is a ref, but
/// a final member read or subscript is still the answer (Swift does not rank subscripts by
/// context), so it does not compile there either: write its type too.
/// Swift chooses among overloads before it looks at `await`, so one untyped expression cannot be
/// a ref when it is not awaited and the answer when it is: the answer wins, so that no awaited
/// call is silently dropped. An untyped map whose transform passes its argument straight into
/// a call (`{ x in api.square(n: x) }`) competes with `Optional.map` and does not compile: write
/// its type. docs/managed.md has the reasons.
///
/// Labels are kept in ``expressionString`` but dropped on the wire: `get(id: "1")` sends
/// `["1"]`. Members named like `RpcRef`'s own (`map`, `timeout`, `idempotent`, `resolved`,
/// `withMetadata`) are reached with `ref[dynamicMember: "map"]`.
///
/// **Retries.** A chain that fails with ``RpcError/timeout``, ``RpcError/connectionLost(_:)``
/// or ``RpcError/rateLimitExceeded(retryAfter:)`` is sent again (up to
/// ``RpcClientConfiguration/maxRetries`` times, with exponential backoff and full jitter
/// between ``RpcClientConfiguration/retryBaseDelay`` and
/// ``RpcClientConfiguration/maxRetryDelay``; a rate limit's `retryAfter` is honoured, capped at
/// the maximum) only when that is safe:
/// - it never reached the wire (the client was offline and the wait for the connection
///   failed or timed out; with the ``OfflinePolicy/fail`` policy it fails at once instead), or
/// - it was marked `idempotent()`, or
/// - the server rejected it with `RateLimitExceeded` and the chain holds at most one call
///   (the rejected call was not performed, and member reads have no effects).
///
/// A call that was sent and then lost is not repeated otherwise: it fails with
/// ``RpcError/connectionLost(_:)`` because the server may have performed it.
@dynamicMemberLookup
@dynamicCallable
public struct RpcRef<T>: Sendable {
    let core: ClientCore
    let expression: RefExpression
    let options: RefOptions

    init(core: ClientCore, expression: RefExpression, options: RefOptions = RefOptions()) {
        self.core = core
        self.expression = expression
        self.options = options
    }

    private func derived<U>(_ expression: RefExpression) -> RpcRef<U> {
        RpcRef<U>(core: core, expression: expression, options: options)
    }

    /// The expression this ref stands for, e.g. `.users.get(id: "123").profile.displayName`.
    public var expressionString: String {
        expression.text()
    }

    // MARK: Members and subscripts

    /// The member `member` as a ref, the base of a further read or call (no network traffic).
    @_disfavoredOverload
    public subscript(dynamicMember member: String) -> RpcRef<Any> {
        derived(.member(expression, member, subscripted: false))
    }

    /// The member `member` as a ref typed by the context (no network traffic).
    public subscript<U>(dynamicMember member: String) -> RpcRef<U> {
        derived(.member(expression, member, subscripted: false))
    }

    /// The member `member`, awaited and decoded as the expected type.
    nonisolated(nonsending) public subscript<U: Decodable>(dynamicMember member: String) -> U {
        get async throws {
            try await (derived(.member(expression, member, subscripted: false)) as RpcRef<Any>).resolved(as: U.self)
        }
    }

    /// The member `member`, awaited, when no type is expected: `async let user = api.users.current`.
    nonisolated(nonsending) public subscript(dynamicMember member: String) -> RpcValue {
        get async throws {
            try await (derived(.member(expression, member, subscripted: false)) as RpcRef<Any>).resolved()
        }
    }

    /// The member `member`, a remote stream, as an `AsyncSequence` of the expected element type
    /// (`for try await message: ChatMessage in chat.messages`); sent when it is read.
    public subscript<Element: Decodable & Sendable>(dynamicMember member: String) -> RpcStream<Element> {
        RpcStream(core: core, expression: .member(expression, member, subscripted: false), options: options)
    }

    /// The member `member` as a call's argument: the ref, resolved on the server (no network
    /// traffic of its own).
    public subscript<Name: StringProtocol & Sendable>(dynamicMember member: Name) -> RpcArgument {
        derived(.member(expression, String(member), subscripted: false)) as RpcRef<Any>
    }

    /// The member named `key` as a ref (`api.users["abc-123"]`), the base of a further read or call.
    @_disfavoredOverload
    public subscript(key: String) -> RpcRef<Any> {
        derived(.member(expression, key, subscripted: true))
    }

    /// The member named `key` as a ref typed by the context.
    public subscript<U>(key: String) -> RpcRef<U> {
        derived(.member(expression, key, subscripted: true))
    }

    /// The member named `key`, awaited and decoded as the expected type.
    nonisolated(nonsending) public subscript<U: Decodable>(key: String) -> U {
        get async throws {
            try await (derived(.member(expression, key, subscripted: true)) as RpcRef<Any>).resolved(as: U.self)
        }
    }

    /// The member named `key`, awaited, when no type is expected.
    nonisolated(nonsending) public subscript(key: String) -> RpcValue {
        get async throws {
            try await (derived(.member(expression, key, subscripted: true)) as RpcRef<Any>).resolved()
        }
    }

    /// The member named `key` as a call's argument: the ref, resolved on the server. (The second
    /// parameter only ranks this overload below the awaiting ones; leave it out.)
    public subscript(key: String, _ argument: Void = ()) -> RpcArgument {
        derived(.member(expression, key, subscripted: true)) as RpcRef<Any>
    }

    /// The element at `index` of a remote array as a ref (`api.users.all[0]`), the base of a
    /// further read or call.
    @_disfavoredOverload
    public subscript(index: Int) -> RpcRef<Any> {
        derived(.index(expression, index))
    }

    /// The element at `index` as a ref typed by the context.
    public subscript<U>(index: Int) -> RpcRef<U> {
        derived(.index(expression, index))
    }

    /// The element at `index`, awaited and decoded as the expected type.
    nonisolated(nonsending) public subscript<U: Decodable>(index: Int) -> U {
        get async throws {
            try await (derived(.index(expression, index)) as RpcRef<Any>).resolved(as: U.self)
        }
    }

    /// The element at `index`, awaited, when no type is expected.
    nonisolated(nonsending) public subscript(index: Int) -> RpcValue {
        get async throws {
            try await (derived(.index(expression, index)) as RpcRef<Any>).resolved()
        }
    }

    /// The element at `index` as a call's argument: the ref, resolved on the server. (The second
    /// parameter only ranks this overload below the awaiting ones; leave it out.)
    public subscript(index: Int, _ argument: Void = ()) -> RpcArgument {
        derived(.index(expression, index)) as RpcRef<Any>
    }

    // MARK: Calls

    private func calling(_ arguments: KeyValuePairs<String, RpcArgument>) -> RefExpression {
        .call(expression, arguments.map { RefArgument(label: $0.key, value: $0.value) })
    }

    /// Calls the referenced method with the arguments in order, as a ref (no network traffic
    /// yet): in synchronous code, or as the base of a further read or call. Arguments may be
    /// Encodable values, ``RpcValue``s, `nil` or other refs (resolved on the server).
    public func dynamicallyCall(withKeywordArguments arguments: KeyValuePairs<String, RpcArgument>) -> RpcRef<Any> {
        derived(calling(arguments))
    }

    /// Calls the referenced method as a ref typed by the context (no network traffic yet).
    public func dynamicallyCall<R>(withKeywordArguments arguments: KeyValuePairs<String, RpcArgument>) -> RpcRef<R> {
        derived(calling(arguments))
    }

    /// Calls the referenced method and awaits its result as the expected type.
    nonisolated(nonsending) public func dynamicallyCall<R: Decodable>(
        withKeywordArguments arguments: KeyValuePairs<String, RpcArgument>
    ) async throws -> R {
        try await (derived(calling(arguments)) as RpcRef<Any>).resolved(as: R.self)
    }

    /// Calls the referenced method, which returns a readable stream, and yields its elements
    /// decoded as the expected type. Cancelling the consuming task cancels the stream.
    nonisolated(nonsending) public func dynamicallyCall<Element: Decodable & Sendable>(
        withKeywordArguments arguments: KeyValuePairs<String, RpcArgument>
    ) async throws -> AsyncThrowingStream<Element, any Error> {
        try await core.stream(calling(arguments), options: options, as: Element.self)
    }

    /// Calls the referenced method and awaits its result when no type is expected: as an
    /// ``RpcValue`` (`let result = try await api.echo(message: "Hi")`), or discarded when the
    /// call is a statement (`try await api.users.delete(id: "123")`).
    @discardableResult
    nonisolated(nonsending) public func dynamicallyCall(
        withKeywordArguments arguments: KeyValuePairs<String, RpcArgument>
    ) async throws -> RpcValue {
        try await (derived(calling(arguments)) as RpcRef<Any>).resolved()
    }

    // MARK: Options

    /// The same ref with a per-request timeout that replaces ``RpcClientConfiguration/timeout``.
    ///
    /// ```swift
    /// let report: Report = try await client.api.longRunningOperation().timeout(.seconds(120))
    /// ```
    public func timeout(_ duration: Duration) -> RpcRef<T> {
        var options = options
        options.timeout = duration
        return RpcRef(core: core, expression: expression, options: options)
    }

    /// Awaits the ref with a per-request timeout, decoded as the expected type.
    nonisolated(nonsending) public func timeout<R: Decodable>(_ duration: Duration) async throws -> R {
        try await timeout(duration).resolved(as: R.self)
    }

    /// Awaits the ref with a per-request timeout when no type is expected (discardable).
    @discardableResult
    nonisolated(nonsending) public func timeout(_ duration: Duration) async throws -> RpcValue {
        try await timeout(duration).resolved()
    }

    /// The same ref marked safe to repeat: after a timeout or a lost connection it is sent
    /// again even if it had reached the server (see the retry rule above).
    public func idempotent() -> RpcRef<T> {
        var options = options
        options.isIdempotent = true
        return RpcRef(core: core, expression: expression, options: options)
    }

    /// Awaits the ref marked idempotent, decoded as the expected type.
    nonisolated(nonsending) public func idempotent<R: Decodable>() async throws -> R {
        try await idempotent().resolved(as: R.self)
    }

    /// Awaits the ref marked idempotent when no type is expected (discardable).
    @discardableResult
    nonisolated(nonsending) public func idempotent() async throws -> RpcValue {
        try await idempotent().resolved()
    }

    /// The same ref carrying `metadata` for the client's interceptors: each one reads it from
    /// ``ClientCall/metadata`` and may change it before passing the call on. Metadata stays in
    /// the client (Cap'n Web has no per-call headers); what the server should see goes in the
    /// call's arguments or in the connection's headers.
    ///
    /// ```swift
    /// let user: User = try await client.api.users.get(id: "1").withMetadata(["trace-id": "abc"])
    /// ```
    public func withMetadata(_ metadata: [String: String]) -> RpcRef<T> {
        var options = options
        options.metadata.merge(metadata) { _, new in new }
        return RpcRef(core: core, expression: expression, options: options)
    }

    /// Awaits the ref carrying `metadata`, decoded as the expected type.
    nonisolated(nonsending) public func withMetadata<R: Decodable>(_ metadata: [String: String]) async throws -> R {
        try await withMetadata(metadata).resolved(as: R.self)
    }

    /// Awaits the ref carrying `metadata` when no type is expected (discardable).
    @discardableResult
    nonisolated(nonsending) public func withMetadata(_ metadata: [String: String]) async throws -> RpcValue {
        try await withMetadata(metadata).resolved()
    }

    // MARK: Awaiting

    /// Sends the chain and decodes the result as `type`.
    ///
    /// - Throws: ``RpcError``.
    nonisolated(nonsending) public func resolved<V: Decodable>(as type: V.Type = V.self) async throws(RpcError) -> V {
        let payload = try await core.execute(expression, options: options)
        return try ErrorMapping.decode(payload, as: V.self)
    }

    /// Sends the chain and returns its result as an ``RpcValue`` (discardable, for calls whose
    /// answer does not matter).
    ///
    /// - Throws: ``RpcError``.
    @discardableResult
    nonisolated(nonsending) public func resolved() async throws(RpcError) -> RpcValue {
        try await resolved(as: RpcValue.self)
    }

    // MARK: Map

    /// Applies `transform` to the value (to each element when it is an array) on the server,
    /// in the same round trip.
    ///
    /// `transform` runs once, when the chain is sent, against a placeholder: it records what
    /// to do with each element. It may read members of its argument and call methods on it and
    /// on other refs (`client.api…`), and returns the ref to evaluate; it cannot see the
    /// elements' values. (It returns a ref, not any value: if it could return an ``RpcValue``,
    /// Swift would pick the sending overload for the call it returns in async code.)
    ///
    /// ```swift
    /// let profiles: [Profile] = try await client.api.users.list().map { user in
    ///     client.api.profiles.forUser(userId: user.id)
    /// }
    /// ```
    public func map(_ transform: @escaping @Sendable (RpcRef<Any>) async throws -> RpcRef<Any>) -> RpcRef<[Any]> {
        let step = MapStep(core: core) { input in MapResult(try await transform(input)) }
        return derived(.map(expression, step))
    }

    /// Like ``map(_:)``, awaited and decoded as the expected type.
    nonisolated(nonsending) public func map<R: Decodable>(
        _ transform: @escaping @Sendable (RpcRef<Any>) async throws -> RpcRef<Any>
    ) async throws -> R {
        try await (map(transform) as RpcRef<[Any]>).resolved(as: R.self)
    }

    /// Like ``map(_:)``, awaited when no type is expected (discardable).
    @discardableResult
    nonisolated(nonsending) public func map(
        _ transform: @escaping @Sendable (RpcRef<Any>) async throws -> RpcRef<Any>
    ) async throws -> RpcValue {
        try await (map(transform) as RpcRef<[Any]>).resolved()
    }
}

extension RpcRef: RefExpressible {
    var refExpression: RefExpression { expression }
}

extension RpcRef: RpcArgumentCalls, ArgumentCallBuilding {
    func argumentCall(_ arguments: KeyValuePairs<String, RpcArgument>) -> RpcRef<Any> {
        dynamicallyCall(withKeywordArguments: arguments)
    }
}

extension RpcRef: CustomStringConvertible {
    /// `RpcRef(.users.get(id: "123"))`.
    public var description: String { "RpcRef(\(expressionString))" }
}
