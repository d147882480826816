import GRDB
import RpcTransport
import RpcWire
import TinyvexProtocol

/// The server's state: the store, the live query streams and the connections' subscriptions.
///
/// An actor whose database work is synchronous inside each call, so mutations run one at a
/// time and the re-evaluations a commit causes are queued on the connections before the call
/// returns (which gives read-your-writes: the caller queues its answer after them). That work
/// blocks the thread it runs on, so the actor runs on a ``StoreExecutor`` (a dispatch queue of
/// its own) and never on a thread of the cooperative pool.
actor TinyvexEngine {
    /// A live query shared by every subscription with the same name, params and identity.
    private struct Stream {
        let name: String
        let params: JSONValue
        let identity: String?
        var value: JSONValue
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
        var subscriptions: [String: StreamKey] = [:]
    }

    /// What `subscribe` answers.
    struct Subscribed {
        let resumed: Bool
        let seq: Int64
    }

    let configuration: TinyvexServerConfiguration
    private let store: DocumentStore
    let schema: TinyvexSchema
    private var version: Int64
    private var streams: [StreamKey: Stream] = [:]
    private var connections: [UInt64: Connection] = [:]
    private var nextConnectionID: UInt64 = 0
    private var nextTransitionID: UInt64 = 0
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
        self.version = try store.version()
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
        connections[nextConnectionID] = Connection(outbox: outbox)
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

    func identity(of connectionID: UInt64) -> String? {
        connections[connectionID]?.identity
    }

    /// The number of live query streams (shared evaluations).
    var streamCount: Int { streams.count }

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
        let key = StreamKey(name: name, params: canonical, identity: connection.identity)
        let subscriber = Subscriber(connectionID: connectionID, subID: subID)
        if let existing = connection.subscriptions[subID], existing != key {
            throw TinyvexServerError(.subscriptionRejected, "the subId \(subID) is live for another query")
        }
        if connection.subscriptions[subID] == nil, connection.subscriptions.count >= configuration.maxSubscriptionsPerConnection {
            throw TinyvexServerError(
                .subscriptionRejected, "the connection holds the most subscriptions allowed (\(configuration.maxSubscriptionsPerConnection))")
        }
        var stream: Stream
        if let live = streams[key] {
            stream = live
        } else {
            let (value, reads) = try evaluate(function.body, params: params, identity: connection.identity)
            stream = Stream(name: name, params: params, identity: connection.identity, value: value, seq: version, reads: reads, subscribers: [])
        }
        var resumed = false
        if let lastSeq, lastSeq > version {
            // The client holds a seq this server never issued (it lost its state): move the
            // version past it so seqs keep growing, and send a fresh value.
            version = lastSeq + 1
            try? store.writer.write { db in try DocumentStore.setVersion(version, db) }
            stream.seq = version
            connection.outbox.push(.init(kind: .control, messages: [
                Wire.errorNotice(subID: subID, TinyvexServerError(.resumeFailed, "lastSeq \(lastSeq) is ahead of the server; a fresh value follows")),
            ]))
        } else if let lastSeq, lastSeq >= stream.seq {
            resumed = true
        }
        if !resumed {
            connection.outbox.push(dataItem(subID: subID, seq: stream.seq, value: stream.value))
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

    /// Runs a mutation: one transaction, then the affected streams re-run and their new values
    /// queued on every subscriber's connection before this returns.
    func mutate(connectionID: UInt64?, identity: String?, requestID: String?, name: String, args: JSONValue) throws(TinyvexServerError) -> (value: JSONValue, seq: Int64) {
        guard let function = schema.mutations[name] else {
            throw TinyvexServerError(.mutationFailed, "no mutation named \(name)")
        }
        if function.requiresIdentity, identity == nil {
            throw TinyvexServerError(.unauthorized, "the mutation \(name) needs an identity")
        }
        let nextVersion = version + 1
        let retention = configuration.mutationResultRetention
        let outcome: (value: JSONValue, seq: Int64, writes: [DocumentWrite], replayed: Bool)
        do {
            outcome = try store.writer.write { db in
                if let requestID, let (value, seq) = try DocumentStore.storedResult(requestID, db) {
                    return (value, seq, [], true)
                }
                let context = TinyvexMutationContext(db: db, identity: identity, deadline: nil)
                let value = try function.body(context, args)
                try DocumentStore.setVersion(nextVersion, db)
                if let requestID {
                    try DocumentStore.storeResult(requestID, value, version: nextVersion, retention: retention, db)
                }
                return (value, nextVersion, context.writes, false)
            }
        } catch let error as TinyvexServerError {
            throw error
        } catch {
            throw TinyvexServerError(.mutationFailed, "the mutation \(name) failed: \(error)")
        }
        if !outcome.replayed {
            version = nextVersion
            propagate(outcome.writes)
        }
        return (outcome.value, outcome.seq)
    }

    /// Re-runs the streams whose read set meets the writes; a changed value gets the current
    /// version as its seq and goes to every subscriber.
    private func propagate(_ writes: [DocumentWrite]) {
        guard !writes.isEmpty else { return }
        for (key, stream) in streams where stream.reads.isTouched(by: writes) {
            guard let function = schema.queries[stream.name] else { continue }
            var updated = stream
            do {
                let (value, reads) = try evaluate(function.body, params: stream.params, identity: stream.identity)
                updated.reads = reads
                if value != stream.value {
                    updated.value = value
                    updated.seq = version
                    for subscriber in stream.subscribers {
                        connections[subscriber.connectionID]?.outbox.push(dataItem(subID: subscriber.subID, seq: version, value: value))
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

    private func dataItem(subID: String, seq: Int64, value: JSONValue) -> Outbox.Item {
        let messages = Wire.data(subID: subID, seq: seq, value: value, maxChunkBytes: configuration.maxChunkBytes, transitionID: nextTransition())
        return Outbox.Item(kind: .data(subID: subID), messages: messages)
    }

    private func nextTransition() -> String {
        nextTransitionID += 1
        return "t\(nextTransitionID)"
    }
}
