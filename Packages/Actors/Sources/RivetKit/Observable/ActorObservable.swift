#if canImport(Combine)
public import Combine
#else
public import OpenCombine
#endif
import Synchronization

/// One actor as a view sees it, with React `useActor` semantics: get-or-create identity, a
/// lifecycle driven by `enabled`, async actions, fire-and-forget `send`, and events with
/// positional arguments. The platform-neutral core of `@Actor`: all the logic lives here,
/// and it runs the same on Linux (with OpenCombine) as under SwiftUI.
///
/// Options whose params or input could not be encoded (``ActorOptions/encodingError``), and a
/// client whose configuration cannot be used, are reported on ``error`` and do not connect.
///
/// While enabled it holds one use of the client's shared connection for its identity
/// ``hash`` (name, key and params); disabling it releases that use (the last user's release
/// disposes the connection) and resets it to ``ActorConnStatus/idle``. No manual cleanup: an
/// observable that goes away releases its use as well, so the last one closes the socket, and
/// finishes the event streams it gave.
///
/// ``error`` clears when the connection becomes connected (again), as React's `useActor` does;
/// ``newErrors`` gives each error once, as it is set, and never one set before its subscriber
/// came (nor a connection's error that arrives after the reconnection that ended it).
///
/// ```swift
/// let counter = ActorObservable(client: client, options: ActorOptions(name: "counter", key: ["a"]))
/// let count: Int = try await counter.action("increment", 1)
/// for await value in counter.events("newCount", as: Int.self) { print(value) }
/// ```
@MainActor
public final class ActorObservable: ObservableObject {
    /// The connection's status.
    @Published public private(set) var connStatus: ActorConnStatus = .idle
    /// The last connection, configuration or decode error; `nil` again once the connection is
    /// connected.
    @Published public private(set) var error: ActorError?
    /// The realtime connection; `nil` while disabled or before the first `Init`.
    @Published public private(set) var connection: ActorConnection?
    /// The stateless handle for HTTP actions; `nil` while disabled.
    @Published public private(set) var handle: ActorHandle?
    /// The identity hash: name, key and params in canonical JSON.
    @Published public private(set) var hash: String
    /// The normalised options.
    @Published public private(set) var opts: ActorOptions

    /// Whether the connection is connected (`Init` arrived).
    public var isConnected: Bool { connStatus == .connected }

    /// Every error once, as it is set: unlike `$error`, a subscriber is not given an error that
    /// was given already, and clearing ``error`` sends nothing. An error set while nobody
    /// subscribed (a configuration error found as the observable was made, before its view
    /// subscribed) is given to the next subscriber, unless the connection connected since.
    /// What `onActorError` runs on.
    public var newErrors: AnyPublisher<ActorError, Never> {
        let inbox = self.inbox
        let live = errorSubject.handleEvents(
            receiveSubscription: { @Sendable _ in inbox.subscribed() },
            receiveCancel: { @Sendable in inbox.unsubscribed() })
        return Deferred { @Sendable in Publishers.Sequence<[ActorError], Never>(sequence: inbox.takeHeld()) }
            .append(live)
            .eraseToAnyPublisher()
    }

    /// The client the actor is reached through.
    public let client: RivetKitClient
    /// The use of the client's shared connection held while enabled; behind a lock rather than
    /// the main actor, so that `deinit` can give it back.
    private let lease = Mutex<ActorConnection?>(nil)
    private var shared: ActorConnection? { lease.withLock { $0 } }
    private let errorSubject = PassthroughSubject<ActorError, Never>()
    private let inbox = ErrorInbox()
    /// What finishes each stream ``events(_:as:)`` gave, by listener; behind a lock so that
    /// `deinit` can finish them.
    private let streamEnds = Mutex<[UInt64: @Sendable () -> Void]>([:])
    /// Why the observable does not connect although enabled (`client.config_error`: options
    /// that could not be encoded, or a configuration that cannot be used), which actions throw.
    private var refusal: ActorError?
    /// How many times the current connection had been ready when it was last seen connected:
    /// its errors dated before that are over.
    private var connectedReadies: UInt64 = 0
    /// Which use of the connection the watchers and forwarders serve (one more per attach).
    private var attachment: UInt64 = 0
    private var forwarding: Set<String> = []
    /// Every task of the observable: the watcher and the event forwarders of the current
    /// attachment, fire-and-forget sends; ``close()`` cancels and awaits them, `deinit` cancels
    /// them.
    private let tasks = OwnedTasks<TaskKey>()
    private var listeners: [String: [UInt64: ([JSONValue]) -> Void]] = [:]
    private var nextListener: UInt64 = 0

    /// Creates the observable and, when `options.enabled`, connects.
    public init(client: RivetKitClient, options: ActorOptions) {
        self.client = client
        self.opts = options
        self.hash = options.hash
        apply()
    }

    deinit {
        tasks.abandon()
        finishStreams()
        if let shared = lease.withLock({ $0.take() }) { client.relinquishConnection(shared) }
    }

    /// Changes the options: a new identity reconnects; `enabled` false disposes the use of the
    /// connection and resets to idle, true connects again.
    public func update(_ options: ActorOptions) {
        guard options != opts else { return }
        let identityChanged =
            options.hash != opts.hash || options.enabled != opts.enabled || options.encodingError != opts.encodingError
        opts = options
        hash = options.hash
        if identityChanged {
            release()
            apply()
        }
    }

    /// Enables or disables the actor (see ``update(_:)``).
    public func setEnabled(_ enabled: Bool) {
        var options = opts
        options.enabled = enabled
        update(options)
    }

    /// Releases the connection now, as disabling does (the last user's release disposes it in
    /// the background, which ``RivetKitClient/close()`` awaits). An observable that goes away
    /// does it by itself.
    public func release() {
        if let shared = detach() { client.relinquishConnection(shared) }
    }

    /// Releases the connection and awaits its disposal when this was its last user, then
    /// cancels and awaits the observable's background work (sends in flight, watchers) and
    /// finishes its event streams; nothing starts afterwards.
    public func close() async {
        if let shared = detach() { await client.releaseConnection(shared) }
        await tasks.close()
        finishStreams()
    }

    /// Reports a configuration error (what `.rivetKit(_:)` does with an unusable endpoint).
    public func report(_ error: ActorError) {
        record(error)
    }

    /// Sets ``error`` and gives it to ``newErrors``.
    private func record(_ error: ActorError) {
        self.error = error
        if inbox.deliverOrHold(error) { errorSubject.send(error) }
    }

    // MARK: Actions

    /// Calls an action without arguments.
    public func action<R: Decodable>(_ name: String) async throws -> R {
        try await action(name, args: [])
    }

    /// Calls an action with one argument.
    public func action<A: Encodable, R: Decodable>(_ name: String, _ a: A) async throws -> R {
        try await action(name, args: [a])
    }

    /// Calls an action with two arguments.
    public func action<A: Encodable, B: Encodable, R: Decodable>(_ name: String, _ a: A, _ b: B) async throws -> R {
        try await action(name, args: [a, b])
    }

    /// Calls an action with three arguments.
    public func action<A: Encodable, B: Encodable, C: Encodable, R: Decodable>(
        _ name: String, _ a: A, _ b: B, _ c: C
    ) async throws -> R {
        try await action(name, args: [a, b, c])
    }

    /// Calls an action with any number of arguments. Errors are thrown (not reported to
    /// ``error``): the action's ``ActorError``, `client.not_connected` while disabled, or the
    /// `client.config_error` that keeps it from connecting.
    public func action<R: Decodable>(_ name: String, args: [any Encodable]) async throws -> R {
        guard let shared else {
            throw refusal ?? ActorError(.clientNotConnected, "the actor is disabled")
        }
        let values = try ActorValues.encode(args)
        return try ActorValues.decode(R.self, from: try await shared.action(name, args: values))
    }

    /// Calls an action without arguments and ignores its result and errors.
    public func send(_ name: String) {
        send(name, args: [])
    }

    /// Calls an action with one argument and ignores its result and errors.
    public func send<A: Encodable>(_ name: String, _ a: A) {
        send(name, args: [a])
    }

    /// Calls an action with two arguments and ignores its result and errors.
    public func send<A: Encodable, B: Encodable>(_ name: String, _ a: A, _ b: B) {
        send(name, args: [a, b])
    }

    /// Calls an action with three arguments and ignores its result and errors.
    public func send<A: Encodable, B: Encodable, C: Encodable>(_ name: String, _ a: A, _ b: B, _ c: C) {
        send(name, args: [a, b, c])
    }

    /// Calls an action and ignores its result and errors, which do not reach ``error``.
    public func send(_ name: String, args: [any Encodable]) {
        guard let shared, let values = try? ActorValues.encode(args) else { return }
        tasks.spawn { _ = try? await shared.action(name, args: values) }
    }

    // MARK: Events

    /// The events `name` with exactly one argument, decoded as `T`, which need not be
    /// `Sendable`: the stream is made and fed on the main actor, to be read there.
    ///
    /// ```swift
    /// for await message in actor.events("message", as: Message.self) { messages.append(message) }
    /// ```
    public func events<T: Decodable>(_ name: String, as: T.Type) -> AsyncStream<T> {
        let (stream, continuation) = AsyncStream<T>.makeStream(bufferingPolicy: bufferingPolicy())
        let token = addListener(name) { [weak self] args in
            let decoded: Result<T, ActorError> = Self.decodedSingle(name, args)
            switch decoded {
            case .success(let value):
                continuation.yield(value)
            case .failure(let error):
                self?.record(error)
            }
        }
        own(continuation, listener: token)
        return stream
    }

    /// The events `name` with exactly one argument, decoded as `T` (inferred when not given).
    public func events<T: Decodable & Sendable>(_ name: String, as: T.Type = T.self) -> AsyncStream<T> {
        typedEvents(name, arity: 1) { args in try ActorValues.decode(T.self, from: args[0]) }
    }

    /// The events `name` without arguments.
    public func events(_ name: String, as: Void.Type = Void.self) -> AsyncStream<Void> {
        typedEvents(name, arity: 0) { _ in () }
    }

    /// The events `name` with exactly two arguments.
    public func events<A: Decodable & Sendable, B: Decodable & Sendable>(_ name: String, as: (A, B).Type)
        -> AsyncStream<(A, B)>
    {
        typedEvents(name, arity: 2) { args in
            (try ActorValues.decode(A.self, from: args[0]), try ActorValues.decode(B.self, from: args[1]))
        }
    }

    /// The events `name` with exactly three arguments.
    public func events<A: Decodable & Sendable, B: Decodable & Sendable, C: Decodable & Sendable>(
        _ name: String, as: (A, B, C).Type
    ) -> AsyncStream<(A, B, C)> {
        typedEvents(name, arity: 3) { args in
            (
                try ActorValues.decode(A.self, from: args[0]), try ActorValues.decode(B.self, from: args[1]),
                try ActorValues.decode(C.self, from: args[2])
            )
        }
    }

    /// Every event `name` with its raw positional arguments.
    @available(*, deprecated, message: "use a typed overload")
    public func events(_ name: String) -> AsyncStream<[JSONValue]> {
        rawEvents(name)
    }

    /// Adds a listener for event `name` with its raw arguments; returns a token for
    /// ``removeListener(_:)``. What the view modifiers and the streams are built on.
    public func addListener(_ name: String, _ handler: @escaping ([JSONValue]) -> Void) -> UInt64 {
        nextListener += 1
        listeners[name, default: [:]][nextListener] = handler
        if !forwarding.contains(name), let shared {
            forward(name, from: shared)
        }
        return nextListener
    }

    /// Removes a listener; the last one of a name unsubscribes.
    public func removeListener(_ token: UInt64) {
        _ = streamEnds.withLock { $0.removeValue(forKey: token) }
        for name in listeners.keys where listeners[name]?[token] != nil {
            listeners[name]?[token] = nil
            if listeners[name]?.isEmpty == true {
                listeners[name] = nil
                if forwarding.remove(name) != nil { tasks.cancel(.forward(name, attachment)) }
            }
        }
    }

    /// Decodes raw arguments of an event with exactly `arity` arguments; a mismatch or a
    /// failed decoding sets ``error`` to `client.decode_error`.
    public func decodeEvent<T>(_ name: String, _ args: [JSONValue], arity: Int, _ decode: ([JSONValue]) throws -> T) -> T? {
        switch Self.decoded(name, args, arity: arity, decode) {
        case .success(let value):
            return value
        case .failure(let error):
            record(error)
            return nil
        }
    }

    /// The arguments of event `name` decoded, or the `client.decode_error` of a wrong arity or
    /// a failed decoding.
    private nonisolated static func decoded<T>(
        _ name: String, _ args: [JSONValue], arity: Int, _ decode: ([JSONValue]) throws -> T
    ) -> Result<T, ActorError> {
        guard args.count == arity else {
            return .failure(
                ActorError(
                    .clientDecodeError, "the event \(name) carried \(args.count) arguments, \(arity) were expected"))
        }
        do {
            return .success(try decode(args))
        } catch {
            return .failure(
                (error as? ActorError).map { ActorError(.clientDecodeError, $0.message) }
                    ?? ActorError(.clientDecodeError, "\(error)"))
        }
    }

    /// The one argument of event `name` decoded as `T`, a fresh value the caller may hand on,
    /// or the `client.decode_error` of a wrong arity or a failed decoding.
    private nonisolated static func decodedSingle<T: Decodable>(_ name: String, _ args: [JSONValue])
        -> sending Result<T, ActorError>
    {
        guard args.count == 1 else {
            return .failure(
                ActorError(.clientDecodeError, "the event \(name) carried \(args.count) arguments, 1 was expected"))
        }
        do throws(ActorError) {
            let value: T = try ActorValues.decode(from: args[0])
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private func typedEvents<T: Sendable>(_ name: String, arity: Int, _ decode: @escaping ([JSONValue]) throws -> T)
        -> AsyncStream<T>
    {
        let (stream, continuation) = AsyncStream<T>.makeStream(bufferingPolicy: bufferingPolicy())
        let token = addListener(name) { [weak self] args in
            switch Self.decoded(name, args, arity: arity, decode) {
            case .success(let value):
                continuation.yield(value)
            case .failure(let error):
                self?.record(error)
            }
        }
        own(continuation, listener: token)
        return stream
    }

    private func rawEvents(_ name: String) -> AsyncStream<[JSONValue]> {
        let (stream, continuation) = AsyncStream<[JSONValue]>.makeStream(bufferingPolicy: bufferingPolicy())
        let token = addListener(name) { args in continuation.yield(args) }
        own(continuation, listener: token)
        return stream
    }

    /// What a stream's end does: removes its listener on the main actor (the stream may end
    /// anywhere).
    private func removal(of token: UInt64) -> @Sendable () -> Void {
        { [weak self, tasks] in tasks.spawn { @MainActor in self?.removeListener(token) } }
    }

    /// Ties a stream to its listener: the stream's end removes the listener, and the
    /// observable's end (``close()``, `deinit`) finishes the stream.
    private func own<T>(_ continuation: AsyncStream<T>.Continuation, listener token: UInt64) {
        Self.onEnd(of: continuation, removal(of: token))
        streamEnds.withLock { $0[token] = Self.finisher(of: continuation) }
    }

    /// Runs `action` when the stream of `continuation` ends.
    private nonisolated static func onEnd<T>(
        of continuation: AsyncStream<T>.Continuation, _ action: @escaping @Sendable () -> Void
    ) {
        continuation.onTermination = { _ in action() }
    }

    /// What finishes the stream of `continuation`.
    private nonisolated static func finisher<T>(of continuation: AsyncStream<T>.Continuation) -> @Sendable () -> Void {
        { continuation.finish() }
    }

    /// Finishes every stream the observable gave, which no event will reach any more.
    private nonisolated func finishStreams() {
        for finish in streamEnds.withLock({ ends in defer { ends = [:] }; return Array(ends.values) }) { finish() }
    }

    /// At most ``ClientConfig/maxBufferedEvents`` waiting events per stream, the oldest dropped.
    private func bufferingPolicy<T>() -> AsyncStream<T>.Continuation.BufferingPolicy {
        .bufferingNewest(max(client.config.maxBufferedEvents, 1))
    }

    // MARK: Lifecycle

    private func apply() {
        refusal = nil
        guard opts.enabled else {
            connStatus = .idle
            return
        }
        do throws(ActorError) {
            // Connecting without the params or input meant would reach another identity, or
            // create the actor without its input; a configuration that cannot be used would
            // only fail the connection's open with the same error, reported a second time.
            if let encodingError = opts.encodingError { throw encodingError }
            _ = try client.config.resolved()
        } catch {
            refusal = error
            connStatus = .idle
            record(error)
            return
        }
        let connection = client.acquireConnection(opts)
        lease.withLock { $0 = connection }
        handle = client.getOrCreate(
            opts.name, key: opts.key, params: opts.params, createWithInput: opts.createWithInput,
            createInRegion: opts.createInRegion)
        let changes = connection.changes()
        attachment += 1
        connectedReadies = 0
        tasks.spawn(.changes(attachment)) { @MainActor [weak self] in
            for await change in changes {
                guard let self else { return }
                self.observe(change, of: connection)
            }
        }
        for name in listeners.keys { forward(name, from: connection) }
        connection.start()
    }

    /// Shows a status or an error of the connection: `connected` clears ``error``; an error
    /// dated before the last connection seen is over and is dropped.
    private func observe(_ change: ActorConnection.Change, of connection: ActorConnection) {
        switch change {
        case .status(let status, let readies):
            connStatus = status
            self.connection = status == .connected ? connection : (status == .idle ? nil : self.connection)
            if status == .connected {
                connectedReadies = max(connectedReadies, readies)
                if error != nil { error = nil }
                inbox.dropHeld()
            }
        case .error(let error, let readies):
            guard readies >= connectedReadies else { return }
            record(error)
        }
    }

    /// Stops watching the connection and resets to idle; returns the use of the connection to
    /// release, if one was held.
    private func detach() -> ActorConnection? {
        tasks.cancel(.changes(attachment))
        for name in forwarding { tasks.cancel(.forward(name, attachment)) }
        forwarding = []
        connStatus = .idle
        connection = nil
        handle = nil
        return lease.withLock { $0.take() }
    }

    private func forward(_ name: String, from connection: ActorConnection) {
        let stream = connection.events(name)
        forwarding.insert(name)
        tasks.spawn(.forward(name, attachment)) { @MainActor [weak self] in
            for await args in stream {
                guard let self else { return }
                for handler in (self.listeners[name] ?? [:]).values { handler(args) }
            }
        }
    }

    /// What the observable's tasks are known by.
    private enum TaskKey: Hashable, Sendable {
        case changes(UInt64)
        case forward(String, UInt64)
    }
}
