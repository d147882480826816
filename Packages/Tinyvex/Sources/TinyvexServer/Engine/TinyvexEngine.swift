import NIOHTTP1
import RpcTransport
import RpcWire
import TinyvexProtocol
import Tracing

/// The server's state: the store, the live query streams and the connections' subscriptions.
///
/// An actor whose writes are synchronous inside each call, so mutations run one at a time, in
/// one commit order. Mutations that arrive while the engine is busy share the next commit
/// (group commit: one transaction and one sync to disk, a savepoint and a version each). That
/// work blocks the thread it runs on, so the actor runs on a ``StoreExecutor`` (a dispatch
/// queue of its own) and never on a thread of the cooperative pool.
///
/// After a commit the streams whose read set meets the writes are marked stale. Those with a
/// subscriber on a connection whose mutation was in the commit run again before any of its
/// mutations is answered (so the answer follows their new values: read-your-writes); the others
/// run in a background pass that evaluates each stale stream once, whatever the number of
/// commits since, on a committed snapshot read away from the engine (so mutations commit
/// meanwhile), and takes at most about half of the time, so a costly query delays its own
/// watchers, not mutations.
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
        /// The version of the snapshot `value` and `reads` come from.
        var evaluatedAt: Int64
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
        /// Whether the connection asked for `tinyvex/transition`s: its subscriptions' changes
        /// wait in ``pendingTransitions`` until all of them are current, then leave as one.
        var transitions = false
    }

    /// What `subscribe` answers.
    struct Subscribed {
        let resumed: Bool
        let seq: Int64
    }

    let configuration: TinyvexServerConfiguration
    /// The largest send queue any connection has had.
    nonisolated let sendQueueStats = SendQueueStats()
    /// The requests being answered on every connection, which a graceful shutdown lets finish.
    nonisolated let requestsInFlight = InFlightWork()
    let store: any TinyvexStore
    /// The scheduled functions' alarm and tasks.
    let jobs: ScheduledJobs
    let schema: TinyvexSchema
    private var version: Int64
    /// Why mutations are refused: the stored version could not be used.
    private var versionProblem: String?
    private var storedResultBytes: Int
    private var streams: [StreamKey: Stream] = [:]
    /// Streams whose read set met a commit since they last ran.
    private var stale: Set<StreamKey> = []
    private var refreshing = false
    /// While the background pass evaluates a stream away from the engine: the writes of each
    /// commit made meanwhile, by the commit's last version, to tell whether they meet what the
    /// evaluation read.
    private var writesDuringEvaluation: [(version: Int64, writes: [DocumentWrite])]?
    /// The background pass over stale streams, while one runs.
    private let refreshTasks = OwnedTasks<Int>()
    /// On a store other servers share: the task that follows their commits.
    private let followTasks = OwnedTasks<Int>()
    /// On a store other servers share: the last commit whose writes were read.
    private var followedVersion: Int64 = 0
    private var connections: [UInt64: Connection] = [:]
    /// The changes waiting for the transitions of connections that asked for them.
    private var pendingTransitions = PendingTransitions()
    /// The streams the background pass evaluates away from the engine right now: their values
    /// are not current until that evaluation is applied (or they run again on the engine).
    private var evaluatingAway: Set<StreamKey> = []
    /// How many rounds of the background pass each connection with a transition waiting has
    /// ended behind (see ``roundsBeforeSettling``).
    private var waitingRounds: [UInt64: Int] = [:]
    /// After this many rounds of the background pass a connection still waiting for its
    /// transition (its streams changed again each time before all were current together) has
    /// its stale streams run on the engine, so that it is never starved.
    static let roundsBeforeSettling = 3
    private var nextConnectionID: UInt64 = 0
    /// Distinguishes this server's connection scopes from those of earlier runs on one file.
    private let instance = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    /// How many evaluations ran (first ones and re-runs), for tests of sharing and selectivity.
    private(set) var evaluationCount = 0

    private let executor: StoreExecutor
    /// What the server records; `nil` when nothing is.
    private let observation: TinyvexObservation?

    /// The trace context a client sent in its upgrade's `headers`, the parent of the spans of
    /// its connection's mutations and queries; `nil` when the server records no spans.
    nonisolated func traceParent(of headers: HTTPHeaders) -> ServiceContext? {
        observation?.traceParent(of: headers)
    }

    /// Runs the actor's jobs on its own queue, off the cooperative pool.
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    private init(schema: TinyvexSchema, database: TinyvexDatabase, configuration: TinyvexServerConfiguration, executor: StoreExecutor) throws {
        self.schema = schema
        self.configuration = configuration
        self.executor = executor
        self.observation = TinyvexObservation.make(configuration.observability)
        self.store = try database.openStore(durability: configuration.durability, indexes: schema.indexes)
        self.jobs = ScheduledJobs(schema: schema, configuration: configuration)
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
        self.storedResultBytes = try store.read { try $0.resultBytes() }
        self.followedVersion = version
    }

    /// Opens the store (blocking file and SQLite work) on the engine's own queue and returns
    /// the engine that runs there.
    static func open(schema: TinyvexSchema, database: TinyvexDatabase, configuration: TinyvexServerConfiguration) async throws -> TinyvexEngine {
        let executor = StoreExecutor(label: "tinyvex.engine")
        let engine = try await executor.run {
            try TinyvexEngine(schema: schema, database: database, configuration: configuration, executor: executor)
        }
        // Runs what came due while the server was stopped, and arms for the rest.
        engine.jobs.start { await engine.runDueFunctions() }
        if let notifications = engine.store.commitNotifications {
            // Owned by the engine: close() cancels and awaits it.
            engine.followTasks.spawn {
                for await _ in notifications { await engine.followRemoteCommits() }
            }
        }
        return engine
    }

    // MARK: Connections

    func register(outbox: Outbox) -> UInt64 {
        nextConnectionID += 1
        connections[nextConnectionID] = Connection(outbox: outbox, resultScope: "connection:\(instance):\(nextConnectionID)")
        return nextConnectionID
    }

    func unregister(_ connectionID: UInt64) {
        guard let connection = connections.removeValue(forKey: connectionID) else { return }
        pendingTransitions.remove(connectionID: connectionID)
        observation?.subscriptionsChanged(by: -connection.subscriptions.count)
        for (subID, key) in connection.subscriptions {
            detach(Subscriber(connectionID: connectionID, subID: subID), from: key)
        }
    }

    /// Turns `tinyvex/transition`s on or off for the connection; changes waiting for a
    /// transition when they are turned off are queued as `data`.
    func setTransitions(_ on: Bool, for connectionID: UInt64) {
        guard var connection = connections[connectionID], connection.transitions != on else { return }
        connection.transitions = on
        connections[connectionID] = connection
        if !on, let waiting = pendingTransitions.take(for: connectionID, version: version) {
            for change in waiting.changes {
                connection.outbox.push(Outbox.Item(subID: change.subID, seq: change.seq, value: change.value))
            }
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
        if let lastSeq, lastSeq > version, store.commitNotifications != nil {
            // A client moved from another server of a shared store may hold a seq of a commit
            // this one has not followed yet.
            followRemoteCommits()
        }
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
            // A refresh that failed dropped the stream's subscriptions, this connection's own
            // too: the copy taken above must not write them back.
            guard let current = connections[connectionID] else {
                throw TinyvexServerError(.subscriptionRejected, "the connection is closing")
            }
            connection = current
        }
        var stream: Stream
        if let live = streams[key] {
            stream = live
        } else {
            let (value, reads) = try evaluate(name, function.body, params: params, identity: connection.identity)
            stream = Stream(
                name: name, params: params, identity: connection.identity, value: value, encoded: EncodedValue(value), seq: version,
                reads: reads, evaluatedAt: version, subscribers: [])
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
            if connection.transitions {
                pendingTransitions.add(Transition.Change(subID: subID, seq: stream.seq, value: stream.encoded), for: connectionID)
            } else {
                connection.outbox.push(Outbox.Item(subID: subID, seq: stream.seq, value: stream.encoded))
            }
        }
        stream.subscribers.insert(subscriber)
        streams[key] = stream
        if connection.subscriptions.updateValue(key, forKey: subID) == nil {
            observation?.subscriptionsChanged(by: 1)
        }
        connections[connectionID] = connection
        // The first value leaves with the connection's other subscriptions made current, before
        // the answer.
        flushTransitions(settling: connection.transitions ? [connectionID] : [])
        return Subscribed(resumed: resumed, seq: stream.seq)
    }

    func unsubscribe(connectionID: UInt64, subID: String) throws(TinyvexServerError) {
        guard let key = connections[connectionID]?.subscriptions.removeValue(forKey: subID) else {
            throw TinyvexServerError(.subscriptionNotFound, "no subscription \(subID) on this connection")
        }
        observation?.subscriptionsChanged(by: -1)
        pendingTransitions.remove(subID: subID, for: connectionID)
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
        return try evaluate(name, function.body, params: params, identity: identity).0
    }

    /// Answers `tinyvex/query`: the query's value once, read at the current version, which is
    /// returned with it; nothing is subscribed and no stream is kept. A stale live stream of the
    /// same query does not matter: the value is read from the store, not from the stream.
    func queryOnce(name: String, params: JSONValue, identity: String?) throws(TinyvexServerError) -> (value: JSONValue, seq: Int64) {
        // The engine makes every write, so no commit lands between this read and `version`.
        let value = try query(name: name, params: params, identity: identity)
        return (value, version)
    }

    /// A mutation waiting for the next commit; a follower's answer is resumed through its
    /// continuation, the leader's (which runs the commit) is returned directly.
    private struct PendingMutation {
        let connectionID: UInt64?
        let identity: String?
        let name: String
        let body: TinyvexSchema.MutationBody
        let requestID: String?
        let resultKey: String?
        let args: JSONValue
        let continuation: CheckedContinuation<MutationOutcome, Never>?
    }

    /// What one mutation of a commit answers.
    typealias MutationOutcome = Result<(value: JSONValue, seq: Int64), TinyvexServerError>

    /// Mutations waiting for the commit the current leader runs.
    private var pendingMutations: [PendingMutation] = []
    /// Whether a leader is gathering or committing mutations.
    private var committing = false
    /// How many commits ran and how many mutations they held, for tests of group commit.
    private(set) var commitCount = 0

    /// Runs a mutation. Mutations that arrive while another one is being committed share the
    /// next transaction (up to `maxMutationsPerCommit`): each runs in its own savepoint, in
    /// arrival order, sees the ones before it, gets its own version and stored result, and a
    /// failing one rolls back alone. After the commit the affected streams of the calling
    /// connections re-run and their new values are queued on them before any of them is
    /// answered; the others are left to the background pass.
    ///
    /// - Parameters:
    ///   - clientID: The client that sent it, when the request names one; otherwise the one the
    ///     connection named in `tinyvex/connect`, or the connection itself.
    ///   - requestID: The client's id for this mutation; with it the result is stored under
    ///     the client's scope and a resend answers it without applying again.
    ///   - scheduledID: The scheduled function this run is, removed in the mutation's savepoint.
    func mutate(connectionID: UInt64?, identity: String?, clientID: String? = nil, requestID: String?, name: String, args: JSONValue, claiming scheduledID: Int64? = nil) async throws(TinyvexServerError) -> (value: JSONValue, seq: Int64) {
        guard let observation else {
            return try await apply(
                connectionID: connectionID, identity: identity, clientID: clientID, requestID: requestID, name: name, args: args, claiming: scheduledID)
        }
        let probe = observation.mutation(name)
        do {
            let result = try await apply(
                connectionID: connectionID, identity: identity, clientID: clientID, requestID: requestID, name: name, args: args, claiming: scheduledID)
            probe.succeeded()
            return result
        } catch {
            probe.failed(error)
            throw error
        }
    }

    /// ``mutate(connectionID:identity:clientID:requestID:name:args:claiming:)`` without its
    /// metrics and span.
    private func apply(connectionID: UInt64?, identity: String?, clientID: String?, requestID: String?, name: String, args: JSONValue, claiming scheduledID: Int64?) async throws(TinyvexServerError) -> (value: JSONValue, seq: Int64) {
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
        let body = scheduledID.map { ScheduledJobs.claiming($0, function.body) } ?? function.body
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
        if committing {
            // A leader gathers or commits: this one joins its next commit.
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<MutationOutcome, Never>) in
                pendingMutations.append(PendingMutation(
                    connectionID: connectionID, identity: identity, name: name, body: body, requestID: requestID, resultKey: resultKey, args: args,
                    continuation: continuation))
            }
            return try outcome.get()
        }
        committing = true
        pendingMutations.append(PendingMutation(
            connectionID: connectionID, identity: identity, name: name, body: body, requestID: requestID, resultKey: resultKey, args: args,
            continuation: nil))
        // The mutations already waiting for the engine come in and join this commit.
        await Task.yield()
        var own: MutationOutcome?
        while !pendingMutations.isEmpty {
            let batch = Array(pendingMutations.prefix(max(1, configuration.maxMutationsPerCommit)))
            pendingMutations.removeFirst(batch.count)
            let outcomes = commit(batch)
            // Each sender's subscriptions show the commit before any answer leaves.
            var settled: Set<UInt64> = []
            for mutation in batch {
                if let id = mutation.connectionID, settled.insert(id).inserted { settle(id) }
            }
            if !pendingTransitions.isEmpty {
                // A connection that asked for transitions gets one, with every subscription
                // current, naming its mutations that it includes, before their answers.
                for (mutation, outcome) in zip(batch, outcomes) {
                    if case .success = outcome, let id = mutation.connectionID, let requestID = mutation.requestID,
                        connections[id]?.transitions == true
                    {
                        pendingTransitions.committed(requestID: requestID, for: id)
                    }
                }
                flushTransitions(settling: settled)
                pendingTransitions.clearRequestIDs()
            }
            for (mutation, outcome) in zip(batch, outcomes) {
                if let continuation = mutation.continuation {
                    continuation.resume(returning: outcome)
                } else {
                    own = outcome
                }
            }
        }
        committing = false
        guard let own else {
            throw TinyvexServerError(.mutationFailed, "the mutation \(name) was not committed")
        }
        return try own.get()
    }

    /// Runs `batch` in one transaction, one savepoint per mutation, and returns each one's
    /// outcome in order. A commit that fails fails them all (nothing of it is applied).
    private func commit(_ batch: [PendingMutation]) -> [MutationOutcome] {
        commitCount += 1
        let retention = configuration.mutationResultRetention
        let retentionBytes = configuration.mutationResultRetentionBytes
        var outcomes: [MutationOutcome] = []
        outcomes.reserveCapacity(batch.count)
        var nextVersion = version
        var storedBytes = storedResultBytes
        var writes: [DocumentWrite] = []
        let indexes = schema.indexes
        let maxPageItems = configuration.maxPaginationItems
        do {
            try store.write { db in
                // Another server sharing the store may have committed since: go on after it.
                if case .usable(let stored) = try db.version(), stored > nextVersion {
                    nextVersion = stored
                }
                let base = nextVersion
                for mutation in batch {
                    // Taken into the commit only once its savepoint is released.
                    var answer: (value: JSONValue, seq: Int64)?
                    var ownVersion = nextVersion
                    var ownBytes = storedBytes
                    var ownWrites: [DocumentWrite] = []
                    do {
                        try db.inSavepoint {
                            if let key = mutation.resultKey, let (value, seq) = try db.storedResult(key) {
                                answer = (value, seq)
                                return
                            }
                            let (next, overflow) = nextVersion.addingReportingOverflow(1)
                            guard !overflow, next <= DocumentStore.maxVersion else {
                                throw TinyvexServerError(
                                    .mutationFailed, "mutations are refused: the server's version reached its largest value",
                                    details: ["reason": "versionExhausted"])
                            }
                            let context = TinyvexMutationContext(db: db, identity: mutation.identity, deadline: nil, indexes: indexes, maxPageItems: maxPageItems)
                            context.jobs = jobs
                            let value = try mutation.body(context, mutation.args)
                            if let key = mutation.resultKey {
                                ownBytes = try db.storeResult(
                                    key, value, version: next, retention: retention, retentionBytes: retentionBytes, storedBytes: storedBytes)
                            }
                            ownVersion = next
                            ownWrites = context.writes
                            answer = (value, next)
                        }
                    } catch let error as TinyvexServerError {
                        outcomes.append(.failure(error))
                        continue
                    } catch {
                        outcomes.append(.failure(TinyvexServerError(.mutationFailed, "the mutation \(mutation.name) failed: \(error)")))
                        continue
                    }
                    guard let answer else {
                        outcomes.append(.failure(TinyvexServerError(.mutationFailed, "the mutation \(mutation.name) did not run")))
                        continue
                    }
                    nextVersion = ownVersion
                    storedBytes = ownBytes
                    writes.append(contentsOf: ownWrites)
                    outcomes.append(.success(answer))
                }
                if nextVersion != base {
                    try db.setVersion(nextVersion)
                    try db.recordCommit(version: nextVersion, writes: writes)
                }
            }
        } catch {
            let failure = (error as? TinyvexServerError) ?? TinyvexServerError(.mutationFailed, "the commit failed: \(error)")
            return batch.map { _ in .failure(failure) }
        }
        version = nextVersion
        storedResultBytes = storedBytes
        markStale(writes)
        if writesDuringEvaluation != nil, !writes.isEmpty {
            writesDuringEvaluation?.append((nextVersion, writes))
        }
        return outcomes
    }

    /// Stops the engine's background work (the pass over stale streams), cancelled and awaited;
    /// none starts afterwards. The server calls it when it stops.
    func close() async {
        await jobs.close()
        await followTasks.close()
        await refreshTasks.close()
    }

    /// Reads the commits other servers sharing the store made since the last one read, and
    /// marks the streams their writes meet, as after a commit of this server.
    func followRemoteCommits() {
        let commits: [(version: Int64, writes: [DocumentWrite])]
        do {
            commits = try store.read { [followedVersion] in try $0.remoteCommits(after: followedVersion) }
        } catch {
            configuration.emit("tinyvex: the commits of other servers could not be read: \(error)")
            return
        }
        if let first = commits.first, first.version > followedVersion + 1 {
            // Commits this server missed are no longer kept (it was behind by more than the
            // retention): every live query runs again.
            stale.formUnion(streams.keys)
            if !stale.isEmpty, !refreshing {
                refreshing = true
                refreshTasks.spawn { await self.refreshStale() }
            }
        }
        for commit in commits {
            followedVersion = max(followedVersion, commit.version)
            version = max(version, commit.version)
            markStale(commit.writes)
            if writesDuringEvaluation != nil, !commit.writes.isEmpty {
                writesDuringEvaluation?.append((commit.version, commit.writes))
            }
        }
        // A function another node scheduled is due here too, so that it runs even if that node
        // is gone; whichever node claims it first runs it (its row is removed under the commit
        // lock), once.
        if !commits.isEmpty, let next = try? store.read({ try $0.nextScheduledRunAt() }) {
            jobs.wake(at: next)
        }
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
    /// it ran before the next one, so that re-evaluation takes at most about half of the time
    /// and the rest goes to mutations, subscriptions and the connections' sending. Each
    /// evaluation reads a committed snapshot away from the engine (a reader connection of a
    /// database file), so mutations commit meanwhile.
    private func refreshStale() async {
        while !stale.isEmpty, !Task.isCancelled {
            let started = ContinuousClock.now
            // The stale streams of connections waiting for a transition run first, together on
            // one snapshot, so that each of those connections is current at once.
            // Each stream runs once per round.
            let keys = stale
            let waiting = Set(pendingTransitions.connections.flatMap { connections[$0]?.subscriptions.values ?? [:].values }).filter { keys.contains($0) }
            if !waiting.isEmpty {
                await refreshAway(Array(waiting))
                await Task.yield()
            }
            for key in keys where stale.contains(key) && !waiting.contains(key) {
                await refreshAway([key])
                // Lets the requests waiting for the engine run between two evaluations.
                await Task.yield()
            }
            settleLongWaiting()
            let spent = ContinuousClock.now - started
            // Streams made stale while this round ran wait as long as it took (at most a
            // second), so that a steady flow of commits leaves the engine time for requests;
            // a pass with nothing left ends at once, so the next commit is not held back.
            if !stale.isEmpty, spent > .milliseconds(1) {
                try? await Task.sleep(for: min(spent, .seconds(1)))
            }
        }
        waitingRounds = [:]
        refreshing = false
    }

    /// The end of a round of the background pass: a connection whose transition has waited
    /// ``roundsBeforeSettling`` rounds has its stale streams run now, on the engine.
    private func settleLongWaiting() {
        var waiting: [UInt64: Int] = [:]
        for connectionID in pendingTransitions.connections {
            waiting[connectionID] = (waitingRounds[connectionID] ?? 0) + 1
        }
        let overdue = Set(waiting.filter { $0.value >= Self.roundsBeforeSettling }.keys)
        for connectionID in overdue { waiting[connectionID] = nil }
        waitingRounds = waiting
        if !overdue.isEmpty {
            flushTransitions(settling: overdue)
        }
    }

    /// Runs stale streams again, together on one snapshot read away from the engine, then
    /// applies each value on the engine: unless the stream was evaluated on a newer snapshot
    /// meanwhile, a changed value is queued for every subscriber with the snapshot's version as
    /// its seq, and a commit made meanwhile that meets what it read makes it stale again.
    private func refreshAway(_ keys: [StreamKey]) async {
        var jobs: [(key: StreamKey, body: TinyvexSchema.QueryBody, params: JSONValue, identity: String?)] = []
        var probes: [TinyvexProbe] = []
        for key in keys {
            stale.remove(key)
            guard let stream = streams[key], let function = schema.queries[stream.name] else { continue }
            evaluationCount += 1
            jobs.append((key, function.body, stream.params, stream.identity))
            if let observation { probes.append(observation.query(stream.name)) }
        }
        guard !jobs.isEmpty else { return }
        writesDuringEvaluation = []
        evaluatingAway = Set(jobs.map(\.key))
        defer {
            writesDuringEvaluation = nil
            evaluatingAway = []
            // Connections waiting for these streams may be current now.
            flushTransitions(settling: [])
        }
        let current = version
        let maxEvaluationTime = configuration.maxEvaluationTime
        let indexes = schema.indexes
        let maxPageItems = configuration.maxPaginationItems
        let evaluations = jobs.map { (body: $0.body, params: $0.params, identity: $0.identity) }
        let outcome: Result<(snapshot: Int64, results: [Result<(value: JSONValue, reads: ReadSet), TinyvexServerError>]), TinyvexServerError>
        do {
            outcome = .success(try await store.snapshotRead { db in
                // The version is read in the same snapshot as the queries.
                let snapshot: Int64 = if case .usable(let stored) = try db.version() { stored } else { current }
                var results: [Result<(value: JSONValue, reads: ReadSet), TinyvexServerError>] = []
                for evaluation in evaluations {
                    let deadline = ContinuousClock.now + maxEvaluationTime
                    let context = TinyvexQueryContext(
                        db: db, identity: evaluation.identity, deadline: deadline, indexes: indexes, maxPageItems: maxPageItems)
                    do {
                        let value = try evaluation.body(context, evaluation.params)
                        if ContinuousClock.now > deadline {
                            throw TinyvexServerError(.timeout, "the query ran past its evaluation time limit")
                        }
                        results.append(.success((value, context.reads)))
                    } catch let error as TinyvexServerError {
                        results.append(.failure(error))
                    } catch {
                        results.append(.failure(TinyvexServerError(.subscriptionRejected, "the query failed: \(error)")))
                    }
                }
                return (snapshot, results)
            })
        } catch let error as TinyvexServerError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(TinyvexServerError(.subscriptionRejected, "the query failed: \(error)"))
        }
        let later = writesDuringEvaluation ?? []
        for (index, job) in jobs.enumerated() {
            guard var updated = streams[job.key] else {
                if probes.indices.contains(index) { probes[index].succeeded() }
                continue
            }
            let result: Result<(value: JSONValue, reads: ReadSet), TinyvexServerError>
            let snapshot: Int64
            switch outcome {
            case .success(let evaluated):
                guard evaluated.results.indices.contains(index) else { continue }
                result = evaluated.results[index]
                snapshot = evaluated.snapshot
            case .failure(let error):
                result = .failure(error)
                snapshot = current
            }
            if probes.indices.contains(index) {
                switch result {
                case .success: probes[index].succeeded()
                case .failure(let error): probes[index].failed(error)
                }
            }
            switch result {
            case .success(let evaluated):
                // Evaluated again on a newer snapshot meanwhile (a new subscriber, a settle).
                guard snapshot >= updated.evaluatedAt else { continue }
                if later.contains(where: { $0.version > snapshot && evaluated.reads.isTouched(by: $0.writes) }) {
                    stale.insert(job.key)
                }
                updated.reads = evaluated.reads
                updated.evaluatedAt = snapshot
                if evaluated.value != updated.value {
                    updated.value = evaluated.value
                    updated.encoded = EncodedValue(evaluated.value)
                    updated.seq = snapshot
                    send(updated.encoded, seq: snapshot, to: updated.subscribers)
                }
                streams[job.key] = updated
            case .failure(let error):
                fail(job.key, updated, error)
            }
        }
    }

    /// Runs a stale stream again; a changed value gets the current version as its seq and is
    /// queued for every subscriber (one encoding shared by all).
    private func refresh(_ key: StreamKey) {
        stale.remove(key)
        // Current from now on; an evaluation away of it is older and is not applied.
        evaluatingAway.remove(key)
        guard let stream = streams[key], let function = schema.queries[stream.name] else { return }
        var updated = stream
        do {
            let (value, reads) = try evaluate(stream.name, function.body, params: stream.params, identity: stream.identity)
            updated.reads = reads
            updated.evaluatedAt = version
            if value != stream.value {
                updated.value = value
                updated.encoded = EncodedValue(value)
                updated.seq = version
                send(updated.encoded, seq: version, to: stream.subscribers)
            }
            streams[key] = updated
        } catch {
            fail(key, stream, error)
        }
    }

    /// The query fails now: tells each subscriber and drops the stream.
    private func fail(_ key: StreamKey, _ stream: Stream, _ error: TinyvexServerError) {
        for subscriber in stream.subscribers {
            pendingTransitions.remove(subID: subscriber.subID, for: subscriber.connectionID)
            connections[subscriber.connectionID]?.outbox.push(.init(kind: .control, messages: [Wire.errorNotice(subID: subscriber.subID, error)]))
            if connections[subscriber.connectionID]?.subscriptions.removeValue(forKey: subscriber.subID) != nil {
                observation?.subscriptionsChanged(by: -1)
            }
        }
        streams[key] = nil
        stale.remove(key)
    }

    /// Queues a stream's changed value for its subscribers: as `data` on a connection that did
    /// not ask for transitions, else for that connection's next transition.
    private func send(_ value: EncodedValue, seq: Int64, to subscribers: Set<Subscriber>) {
        for subscriber in subscribers {
            guard let connection = connections[subscriber.connectionID] else { continue }
            if connection.transitions {
                pendingTransitions.add(Transition.Change(subID: subscriber.subID, seq: seq, value: value), for: subscriber.connectionID)
            } else {
                connection.outbox.push(Outbox.Item(subID: subscriber.subID, seq: seq, value: value))
            }
        }
    }

    /// Sends the waiting transition of every connection whose subscriptions are all current
    /// (none stale, none being evaluated away), at the current version. A connection in
    /// `settling` (every one when `nil`) that is behind has its stale streams run now on the
    /// engine first; the others wait for the background pass.
    private func flushTransitions(settling: Set<UInt64>?) {
        while !pendingTransitions.isEmpty {
            var progressed = false
            for connectionID in Array(pendingTransitions.connections) {
                guard let connection = connections[connectionID], connection.transitions else {
                    pendingTransitions.remove(connectionID: connectionID)
                    continue
                }
                let behind = Set(connection.subscriptions.values.filter { stale.contains($0) || evaluatingAway.contains($0) })
                if !behind.isEmpty {
                    guard settling?.contains(connectionID) ?? true else { continue }
                    for key in behind { refresh(key) }
                    progressed = true
                    continue
                }
                if let transition = pendingTransitions.take(for: connectionID, version: version) {
                    connection.outbox.push(Outbox.Item(transition: transition))
                }
                progressed = true
            }
            if !progressed { return }
        }
    }

    private func evaluate(_ name: String, _ body: TinyvexSchema.QueryBody, params: JSONValue, identity: String?) throws(TinyvexServerError) -> (JSONValue, ReadSet) {
        guard let observation else { return try run(body, params: params, identity: identity) }
        let probe = observation.query(name)
        do {
            let result = try run(body, params: params, identity: identity)
            probe.succeeded()
            return result
        } catch {
            probe.failed(error)
            throw error
        }
    }

    /// Runs one query on the engine's store.
    private func run(_ body: TinyvexSchema.QueryBody, params: JSONValue, identity: String?) throws(TinyvexServerError) -> (JSONValue, ReadSet) {
        evaluationCount += 1
        let deadline = ContinuousClock.now + configuration.maxEvaluationTime
        let indexes = schema.indexes
        let maxPageItems = configuration.maxPaginationItems
        do {
            return try store.read { db in
                let context = TinyvexQueryContext(db: db, identity: identity, deadline: deadline, indexes: indexes, maxPageItems: maxPageItems)
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
