import GRDB
import RpcTransport
import RpcWire
import TinyvexProtocol

/// The server's state: the store, the live query streams and the connections' subscriptions.
///
/// An actor whose database work is synchronous inside each call, so mutations run one at a
/// time. That work blocks the thread it runs on, so the actor runs on a ``StoreExecutor`` (a
/// dispatch queue of its own) and never on a thread of the cooperative pool.
///
/// After a commit the streams whose read set meets the writes are marked stale. Those with a
/// subscriber on the mutating connection run again before the mutation returns (so its answer
/// follows their new values: read-your-writes); the others run in a background pass that
/// evaluates each stale stream once, whatever the number of commits since, and takes at most
/// about half of the engine's time, so a costly query delays its own watchers, not mutations.
actor TinyvexEngine {
    /// A live query shared by every subscription with the same name, params and identity.
    private struct Stream {
        let name: String
        let params: JSONValue
        let identity: String?
        var value: JSONValue
        /// The value as JSON text, encoded once for every subscriber.
        var encoded: EncodedValue
        /// The version at which the value last changed.
        var seq: Int64
        var reads: ReadSet
        var subscribers: Set<Subscriber>
    }

    private struct Subscriber: Hashable {
        let connectionID: UInt64
        let subID: String
    }

    private struct StreamKey: Hashable {
        let name: String
        let params: String
        let identity: String?
    }

    private struct Connection {
        let outbox: Outbox
        var identity: String?
        /// Where this connection's mutation results are stored: its client's id, or (without
        /// one) the connection itself.
        var resultScope: String
        var subscriptions: [String: StreamKey] = [:]
    }

    /// What `subscribe` answers.
    struct Subscribed {
        let resumed: Bool
        let seq: Int64
    }

    let configuration: TinyvexServerConfiguration
    /// The largest send queue any connection has had.
    nonisolated let sendQueueStats = SendQueueStats()
    private let store: DocumentStore
    let schema: TinyvexSchema
    private var version: Int64
    /// Why mutations are refused: the stored version could not be used.
    private var versionProblem: String?
    private var storedResultBytes: Int
    private var streams: [StreamKey: Stream] = [:]
    /// Streams whose read set met a commit since they last ran.
    private var stale: Set<StreamKey> = []
    private var refreshing = false
    /// The background pass over stale streams, while one runs.
    private let refreshTasks = OwnedTasks<Int>()
    private var connections: [UInt64: Connection] = [:]
    private var nextConnectionID: UInt64 = 0
    /// Distinguishes this server's connection scopes from those of earlier runs on one file.
    private let instance = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    /// How many evaluations ran (first ones and re-runs), for tests of sharing and selectivity.
    private(set) var evaluationCount = 0

    private let executor: StoreExecutor

    /// Runs the actor's jobs on its own queue, off the cooperative pool.
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    private init(schema: TinyvexSchema, database: TinyvexDatabase, configuration: TinyvexServerConfiguration, executor: StoreExecutor) throws {
        self.schema = schema
        self.configuration = configuration
        self.executor = executor
        self.store = try DocumentStore(database)
        switch try store.version() {
        case .usable(let version):
            self.version = version
            self.versionProblem = nil
        case .unusable(let reason):
            // Queries still answer (at version 0); mutations are refused with a clear error.
            self.version = 0
            self.versionProblem = reason
            configuration.emit("tinyvex: \(reason); queries are served, mutations are refused until the store is repaired")
        }
        self.storedResultBytes = try store.writer.read { db in try DocumentStore.resultBytes(db) }
    }

    /// Opens the store (blocking file and SQLite work) on the engine's own queue and returns
    /// the engine that runs there.
    static func open(schema: TinyvexSchema, database: TinyvexDatabase, configuration: TinyvexServerConfiguration) async throws -> TinyvexEngine {
        let executor = StoreExecutor(label: "tinyvex.engine")
        return try await executor.run {
            try TinyvexEngine(schema: schema, database: database, configuration: configuration, executor: executor)
        }
    }

    // MARK: Connections

    func register(outbox: Outbox) -> UInt64 {
        nextConnectionID += 1
        connections[nextConnectionID] = Connection(outbox: outbox, resultScope: "connection:\(instance):\(nextConnectionID)")
        return nextConnectionID
    }

    func unregister(_ connectionID: UInt64) {
        guard let connection = connections.removeValue(forKey: connectionID) else { return }
        for (subID, key) in connection.subscriptions {
            detach(Subscriber(connectionID: connectionID, subID: subID), from: key)
        }
    }

    func setIdentity(_ identity: String?, for connectionID: UInt64) {
        connections[connectionID]?.identity = identity
    }

    /// Scopes the connection's mutation results to the client `clientID` (kept across its
    /// reconnects), so that its resends dedupe and no other client sees them.
    func setClientID(_ clientID: String, for connectionID: UInt64) {
        connections[connectionID]?.resultScope = "client:\(clientID)"
    }

    func identity(of connectionID: UInt64) -> String? {
        connections[connectionID]?.identity
    }

    /// The number of live query streams (shared evaluations).
    var streamCount: Int { streams.count }

    /// The server's version counter.
    var currentVersion: Int64 { version }

    /// The bytes the stored mutation results take.
    var mutationResultBytes: Int { storedResultBytes }

    // MARK: Subscriptions

    func subscribe(connectionID: UInt64, subID: String, name: String, params: JSONValue, lastSeq: Int64?) throws(TinyvexServerError) -> Subscribed {
        guard var connection = connections[connectionID] else {
            throw TinyvexServerError(.subscriptionRejected, "the connection is closing")
        }
        guard let function = schema.queries[name] else {
            throw TinyvexServerError(.subscriptionRejected, "no query named \(name)")
        }
        if function.requiresIdentity, connection.identity == nil {
            throw TinyvexServerError(.unauthorized, "the query \(name) needs an identity")
        }
        guard let canonical = TinyvexCanonicalJSON.text(params) else {
            throw TinyvexServerError(.subscriptionRejected, "the params hold a number JSON cannot write")
        }
        guard canonical.utf8.count <= configuration.maxSubscriptionParamsBytes else {
            throw TinyvexServerError(
                .subscriptionRejected, "the params are longer than maxSubscriptionParamsBytes (\(configuration.maxSubscriptionParamsBytes) bytes)")
        }
        let key = StreamKey(name: name, params: canonical, identity: connection.identity)
        let subscriber = Subscriber(connectionID: connectionID, subID: subID)
        if let existing = connection.subscriptions[subID], existing != key {
            throw TinyvexServerError(.subscriptionRejected, "the subId \(subID) is live for another query")
        }
        if connection.subscriptions[subID] == nil, connection.subscriptions.count >= configuration.maxSubscriptionsPerConnection {
            throw TinyvexServerError(
                .subscriptionRejected, "the connection holds the most subscriptions allowed (\(configuration.maxSubscriptionsPerConnection))")
        }
        if stale.contains(key) {
            // A new subscriber gets the current value, not one a commit already changed.
            refresh(key)
        }
        var stream: Stream
        if let live = streams[key] {
            stream = live
        } else {
            let (value, reads) = try evaluate(function.body, params: params, identity: connection.identity)
            stream = Stream(
                name: name, params: params, identity: connection.identity, value: value, encoded: EncodedValue(value), seq: version,
                reads: reads, subscribers: [])
        }
        var resumed = false
        if let lastSeq, lastSeq > version {
            // The client holds a seq this server never issued (it lost its state, or the client
            // is wrong). The server's version is not moved by a client's number: the notice
            // tells the client that this subscription's seqs start again from the value that
            // follows.
            connection.outbox.push(.init(kind: .control, messages: [
                Wire.errorNotice(
                    subID: subID,
                    TinyvexServerError(
                        .resumeFailed, "lastSeq \(lastSeq) is ahead of the server (\(version)); a fresh value follows and seqs start again from it",
                        details: ["serverSeq": .integer(version)])),
            ]))
        } else if let lastSeq, lastSeq >= stream.seq {
            resumed = true
        }
        if !resumed {
            connection.outbox.push(Outbox.Item(subID: subID, seq: stream.seq, value: stream.encoded))
        }
        stream.subscribers.insert(subscriber)
        streams[key] = stream
        connection.subscriptions[subID] = key
        connections[connectionID] = connection
        return Subscribed(resumed: resumed, seq: stream.seq)
    }

    func unsubscribe(connectionID: UInt64, subID: String) throws(TinyvexServerError) {
        guard let key = connections[connectionID]?.subscriptions.removeValue(forKey: subID) else {
            throw TinyvexServerError(.subscriptionNotFound, "no subscription \(subID) on this connection")
        }
        detach(Subscriber(connectionID: connectionID, subID: subID), from: key)
    }

    private func detach(_ subscriber: Subscriber, from key: StreamKey) {
        streams[key]?.subscribers.remove(subscriber)
        if streams[key]?.subscribers.isEmpty == true {
            streams[key] = nil
            stale.remove(key)
        }
    }

    // MARK: Queries, mutations

    func query(name: String, params: JSONValue, identity: String?) throws(TinyvexServerError) -> JSONValue {
        guard let function = schema.queries[name] else {
            throw TinyvexServerError(.subscriptionRejected, "no query named \(name)")
        }
        if function.requiresIdentity, identity == nil {
            throw TinyvexServerError(.unauthorized, "the query \(name) needs an identity")
        }
        return try evaluate(function.body, params: params, identity: identity).0
    }

    /// Runs a mutation: one transaction; then the affected streams of the calling connection
    /// re-run and their new values are queued on it before this returns, and the others are
    /// left to the background pass.
    ///
    /// - Parameters:
    ///   - clientID: The client that sent it, when the request names one; otherwise the one the
    ///     connection named in `tinyvex/connect`, or the connection itself.
    ///   - requestID: The client's id for this mutation; with it the result is stored under
    ///     the client's scope and a resend answers it without applying again.
    func mutate(connectionID: UInt64?, identity: String?, clientID: String? = nil, requestID: String?, name: String, args: JSONValue) throws(TinyvexServerError) -> (value: JSONValue, seq: Int64) {
        guard let function = schema.mutations[name] else {
            throw TinyvexServerError(.mutationFailed, "no mutation named \(name)")
        }
        if function.requiresIdentity, identity == nil {
            throw TinyvexServerError(.unauthorized, "the mutation \(name) needs an identity")
        }
        if let versionProblem {
            throw TinyvexServerError(
                .mutationFailed, "mutations are refused: \(versionProblem)", details: ["reason": "storeVersionUnusable"])
        }
        let (next, overflow) = version.addingReportingOverflow(1)
        guard !overflow, next <= DocumentStore.maxVersion else {
            throw TinyvexServerError(
                .mutationFailed, "mutations are refused: the server's version reached its largest value", details: ["reason": "versionExhausted"])
        }
        let resultKey: String?
        if let requestID {
            let scope = clientID.map { "client:\($0)" } ?? connectionID.flatMap { connections[$0]?.resultScope } ?? "server:\(instance)"
            do {
                resultKey = try DocumentStore.resultKey(scope: scope, requestID: requestID)
            } catch {
                throw TinyvexServerError(.mutationFailed, "the requestId cannot be stored: \(error)")
            }
        } else {
            resultKey = nil
        }
        let retention = configuration.mutationResultRetention
        let retentionBytes = configuration.mutationResultRetentionBytes
        let storedBytes = storedResultBytes
        let outcome: (value: JSONValue, seq: Int64, writes: [DocumentWrite], replayed: Bool, storedBytes: Int)
        do {
            outcome = try store.writer.write { db in
                if let resultKey, let (value, seq) = try DocumentStore.storedResult(resultKey, db) {
                    return (value, seq, [], true, storedBytes)
                }
                let context = TinyvexMutationContext(db: db, identity: identity, deadline: nil)
                let value = try function.body(context, args)
                try DocumentStore.setVersion(next, db)
                var bytes = storedBytes
                if let resultKey {
                    bytes = try DocumentStore.storeResult(
                        resultKey, value, version: next, retention: retention, retentionBytes: retentionBytes, storedBytes: storedBytes, db)
                }
                return (value, next, context.writes, false, bytes)
            }
        } catch let error as TinyvexServerError {
            throw error
        } catch {
            throw TinyvexServerError(.mutationFailed, "the mutation \(name) failed: \(error)")
        }
        if !outcome.replayed {
            version = next
            storedResultBytes = outcome.storedBytes
            markStale(outcome.writes)
        }
        if let connectionID {
            settle(connectionID)
        }
        return (outcome.value, outcome.seq)
    }

    /// Stops the engine's background work (the pass over stale streams), cancelled and awaited;
    /// none starts afterwards. The server calls it when it stops.
    func close() async {
        await refreshTasks.close()
    }

    /// Marks the streams whose read set meets the writes, and starts the background pass.
    private func markStale(_ writes: [DocumentWrite]) {
        guard !writes.isEmpty else { return }
        for (key, stream) in streams where !stale.contains(key) && stream.reads.isTouched(by: writes) {
            stale.insert(key)
        }
        guard !stale.isEmpty, !refreshing else { return }
        refreshing = true
        // Owned by the engine: close() cancels and awaits it.
        refreshTasks.spawn { await self.refreshStale() }
    }

    /// Re-runs now the stale streams the connection subscribes to, so that what it sends next
    /// follows their new values.
    private func settle(_ connectionID: UInt64) {
        guard !stale.isEmpty, let connection = connections[connectionID] else { return }
        for key in Set(connection.subscriptions.values) where stale.contains(key) {
            refresh(key)
        }
    }

    /// The background pass: each stale stream runs once, then the pass waits about as long as
    /// it ran before the next one, so that re-evaluation takes at most about half of the
    /// engine's time and mutations, subscriptions and other streams go on meanwhile.
    private func refreshStale() async {
        while !stale.isEmpty, !Task.isCancelled {
            let started = ContinuousClock.now
            let keys = stale
            for key in keys where stale.contains(key) {
                refresh(key)
                // Lets the requests waiting for the engine run between two evaluations.
                await Task.yield()
            }
            let spent = ContinuousClock.now - started
            if spent > .milliseconds(1) {
                try? await Task.sleep(for: min(spent, .seconds(1)))
            }
        }
        refreshing = false
    }

    /// Runs a stale stream again; a changed value gets the current version as its seq and is
    /// queued for every subscriber (one encoding shared by all).
    private func refresh(_ key: StreamKey) {
        stale.remove(key)
        guard let stream = streams[key], let function = schema.queries[stream.name] else { return }
        var updated = stream
        do {
            let (value, reads) = try evaluate(function.body, params: stream.params, identity: stream.identity)
            updated.reads = reads
            if value != stream.value {
                updated.value = value
                updated.encoded = EncodedValue(value)
                updated.seq = version
                for subscriber in stream.subscribers {
                    connections[subscriber.connectionID]?.outbox.push(Outbox.Item(subID: subscriber.subID, seq: version, value: updated.encoded))
                }
            }
            streams[key] = updated
        } catch {
            // The query fails now: tell each subscriber and drop the stream.
            for subscriber in stream.subscribers {
                connections[subscriber.connectionID]?.outbox.push(.init(kind: .control, messages: [Wire.errorNotice(subID: subscriber.subID, error)]))
                connections[subscriber.connectionID]?.subscriptions[subscriber.subID] = nil
            }
            streams[key] = nil
        }
    }

    private func evaluate(_ body: TinyvexSchema.QueryBody, params: JSONValue, identity: String?) throws(TinyvexServerError) -> (JSONValue, ReadSet) {
        evaluationCount += 1
        let deadline = ContinuousClock.now + configuration.maxEvaluationTime
        do {
            return try store.writer.read { db in
                let context = TinyvexQueryContext(db: db, identity: identity, deadline: deadline)
                let value = try body(context, params)
                if ContinuousClock.now > deadline {
                    throw TinyvexServerError(.timeout, "the query ran past its evaluation time limit")
                }
                return (value, context.reads)
            }
        } catch let error as TinyvexServerError {
            throw error
        } catch {
            throw TinyvexServerError(.subscriptionRejected, "the query failed: \(error)")
        }
    }
}
