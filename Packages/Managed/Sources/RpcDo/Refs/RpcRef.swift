/// A lazy reference to a remote value: member reads, subscripts and calls build an expression
/// without any network traffic, and awaiting sends the whole chain at once, pipelined, in one
/// round trip.
///
/// ```swift
/// let name: String = try await client.api.users.get(id: "123").profile.displayName
/// let ref = client.api.users.get(id: "123").profile.displayName
/// print(ref.expressionString)          // .users.get(id: "123").profile.displayName
/// let same: String = try await ref.resolved()
/// ```
///
/// Awaiting picks the awaiting overload from the expected type: write the type
/// (`let n: Int = try await api.count()`), or call ``resolved(as:)`` on a ref you hold. Use
/// `let _: RpcValue = try await …` (or ``resolved()``) for a call whose result does not
/// matter: a ref that is never awaited is never sent.
///
/// Labels are kept in ``expressionString`` but dropped on the wire: `get(id: "1")` sends
/// `["1"]`. Members named like `RpcRef`'s own (`map`, `timeout`, `idempotent`, `resolved`)
/// are reached with `ref[dynamicMember: "map"]`.
///
/// **Retries.** A chain that fails with ``RpcError/timeout``, ``RpcError/connectionLost(_:)``
/// or ``RpcError/rateLimitExceeded(retryAfter:)`` is sent again (up to
/// ``RpcClientConfiguration/maxRetries`` times, with exponential backoff and full jitter
/// between ``RpcClientConfiguration/retryBaseDelay`` and
/// ``RpcClientConfiguration/maxRetryDelay``; a rate limit's `retryAfter` is honoured, capped at
/// the maximum) only when that is safe:
/// - it never reached the wire (the client was offline and the wait for the connection
///   failed or timed out; with the ``OfflinePolicy/fail`` policy it fails at once instead), or
/// - it was marked ``idempotent()``, or
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

    /// The member `member` (no network traffic).
    public subscript(dynamicMember member: String) -> RpcRef<Any> {
        derived(.member(expression, member, subscripted: false))
    }

    /// The member `member`, typed by the context.
    public subscript<U>(dynamicMember member: String) -> RpcRef<U> {
        derived(.member(expression, member, subscripted: false))
    }

    /// The member `member`, awaited and decoded as the expected type.
    nonisolated(nonsending) public subscript<U: Decodable>(dynamicMember member: String) -> U {
        get async throws {
            try await (derived(.member(expression, member, subscripted: false)) as RpcRef<Any>).resolved(as: U.self)
        }
    }

    /// The member named `key` (`api.users["abc-123"]`).
    public subscript(key: String) -> RpcRef<Any> {
        derived(.member(expression, key, subscripted: true))
    }

    /// The member named `key`, typed by the context.
    public subscript<U>(key: String) -> RpcRef<U> {
        derived(.member(expression, key, subscripted: true))
    }

    /// The member named `key`, awaited and decoded as the expected type.
    nonisolated(nonsending) public subscript<U: Decodable>(key: String) -> U {
        get async throws {
            try await (derived(.member(expression, key, subscripted: true)) as RpcRef<Any>).resolved(as: U.self)
        }
    }

    /// The element at `index` of a remote array (`api.users.all[0]`).
    public subscript(index: Int) -> RpcRef<Any> {
        derived(.index(expression, index))
    }

    /// The element at `index`, typed by the context.
    public subscript<U>(index: Int) -> RpcRef<U> {
        derived(.index(expression, index))
    }

    /// The element at `index`, awaited and decoded as the expected type.
    nonisolated(nonsending) public subscript<U: Decodable>(index: Int) -> U {
        get async throws {
            try await (derived(.index(expression, index)) as RpcRef<Any>).resolved(as: U.self)
        }
    }

    // MARK: Calls

    private func calling(_ arguments: KeyValuePairs<String, any Sendable>) -> RefExpression {
        .call(expression, arguments.map { RefArgument(label: $0.key, value: $0.value) })
    }

    /// Calls the referenced method with the arguments in order (no network traffic yet).
    /// Arguments may be Encodable values, ``RpcValue``s or other refs (resolved on the server).
    public func dynamicallyCall(withKeywordArguments arguments: KeyValuePairs<String, any Sendable>) -> RpcRef<Any> {
        derived(calling(arguments))
    }

    /// Calls the referenced method; the result is typed by the context.
    public func dynamicallyCall<R>(withKeywordArguments arguments: KeyValuePairs<String, any Sendable>) -> RpcRef<R> {
        derived(calling(arguments))
    }

    /// Calls the referenced method and awaits its result as the expected type.
    nonisolated(nonsending) public func dynamicallyCall<R: Decodable>(
        withKeywordArguments arguments: KeyValuePairs<String, any Sendable>
    ) async throws -> R {
        try await (derived(calling(arguments)) as RpcRef<Any>).resolved(as: R.self)
    }

    /// Calls the referenced method, which returns a readable stream, and yields its elements
    /// decoded as the expected type. Cancelling the consuming task cancels the stream.
    nonisolated(nonsending) public func dynamicallyCall<Element: Decodable & Sendable>(
        withKeywordArguments arguments: KeyValuePairs<String, any Sendable>
    ) async throws -> AsyncThrowingStream<Element, any Error> {
        try await core.stream(calling(arguments), options: options, as: Element.self)
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
    /// to do with each element. It may read members of its argument, call methods on it and
    /// on other refs (`client.api…`), and return a ref or a plain Encodable value; it cannot
    /// see the elements' values.
    ///
    /// ```swift
    /// let profiles: [Profile] = try await client.api.users.list().map { user in
    ///     client.api.profiles.forUser(userId: user.id)
    /// }
    /// ```
    public func map<U>(_ transform: @escaping @Sendable (RpcRef<Any>) async throws -> U) -> RpcRef<[U]> {
        let step = MapStep(core: core) { input in MapResult(try await transform(input)) }
        return derived(.map(expression, step))
    }

    /// Like ``map(_:)``, awaited and decoded as the expected type.
    nonisolated(nonsending) public func map<U, R: Decodable>(
        _ transform: @escaping @Sendable (RpcRef<Any>) async throws -> U
    ) async throws -> R {
        try await (map(transform) as RpcRef<[U]>).resolved(as: R.self)
    }
}

extension RpcRef: RefExpressible {
    var refExpression: RefExpression { expression }
}

extension RpcRef: CustomStringConvertible {
    /// `RpcRef(.users.get(id: "123"))`.
    public var description: String { "RpcRef(\(expressionString))" }
}
