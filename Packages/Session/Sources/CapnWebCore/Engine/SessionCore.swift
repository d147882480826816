import Synchronization
internal import RpcTransport
internal import RpcWire

/// The protocol engine of one session: both tables, ID numbering, the outbox, and the session's
/// end. It is symmetric; the same engine runs on a client and on a server.
///
/// Inbound frames are processed where the transport delivers them, in order. Table state lives
/// behind one mutex; no application code and no hook operation ever runs while it is held
/// (those run afterwards, in order, from the ``SessionEffect`` values a transition returns). Outbound messages are appended
/// to an outbox under the mutex, so IDs and message order always agree, and written by one
/// flusher at a time.
final class SessionCore: Sendable {
    struct ImportEntry {
        /// The hook of a stub the peer exported, so that a second introduction of the ID finds
        /// it. Push results and pipes leave it `nil`: a weak reference gives its object a side
        /// table, which makes every retain and release of it slower.
        weak var hook: ImportHook?
        var owner: ObjectIdentifier?
        /// How many times the peer introduced this ID to us: the count sent with `release`.
        var introductions: Int64
        var pulled: Bool
        /// A `stream` result: the peer drops it after settling; no release is sent.
        var isStream = false
        /// The main import: never released.
        var permanent = false
        /// For a promise, what its answer settles.
        var resolution: LocalPromiseHook? = nil
    }

    struct ExportEntry {
        var hook: any StubHook
        var refcount: Int64
        var pulled = false
        /// A `stream` result: dropped as soon as it is answered.
        var dropAfterAnswer = false
        /// For a pipe the peer opened, its readable end, handed out once.
        var pipe: RpcReadableStream?
        /// The size of the push that made this entry while its result is neither pulled nor
        /// released: what it counts toward ``RpcLimits/maxUnpulledBytes``.
        var unpulledBytes = 0
    }

    struct State {
        var imports: [Int64: ImportEntry] = [:]
        var exports: [Int64: ExportEntry] = [:]
        var nextImportID: Int64 = 1
        var nextExportID: Int64 = -1
        var nextPeerID: Int64 = 1
        /// The bytes of the pushes whose results the peer has neither pulled nor released.
        var unpulledBytes = 0
        /// Calls the peer released while they still ran, kept so that the session's end cancels
        /// them too (see ``keepUntilEnd(_:)``).
        var releasedRunning: [LocalPromiseHook] = []
        /// The size of ``releasedRunning`` at which the calls that finished are dropped from it.
        var releasedRunningPurgeAt = 16
        /// How many calls the peer released are still running: they count toward
        /// ``RpcLimits/maxTableEntries`` as if they were still in the export table.
        var releasedRunningCount = 0
        /// The estimated bytes of the answers in the outbox, not yet encoded: with
        /// ``SessionCore/writtenAnswerBytes``, what counts toward
        /// ``RpcLimits/maxPendingOutputBytes``.
        var outboxAnswerBytes = 0
        var outbox: [CapnWebMessage] = []
        /// An emptied outbox buffer kept for the next round (see `flushOutbox`).
        var spareOutbox: [CapnWebMessage] = []
        /// The bytes messages are encoded into, kept for the next flush (see `flushOutbox`).
        var spareBytes: [UInt8] = []
        var flushing = false
        var ended: Rejection?
        /// Set when an HTTP batch's request has left: new calls fail with it at once.
        var sealed: Rejection?
        /// Exports the peer pulled (or promises we exported) whose answer is not sent yet; an
        /// entry the peer releases first leaves the set with it.
        var unanswered: Set<Int64> = []
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Tasks in ``SessionCore/seal(_:)`` waiting for the flush under way to end.
        var flushWaiters: [CheckedContinuation<Void, Never>] = []
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        var brokenHandlers: [@Sendable (RpcError) -> Void] = []
    }

    /// Where outgoing frames go and incoming frames come from.
    let transport: any MessageTransport
    let codec: CapnWebCodec
    let limits: RpcLimits
    /// The timeout clock of every awaited call; `nil` for no limit.
    let deadlines: CallDeadlines?
    /// Called with every frame: `true` for sent, `false` for received.
    let trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)?
    let state: Mutex<State>
    /// The session's own tasks (stream copies, the processing of drops that found the mutex
    /// held): cancelled when it ends.
    private let tasks = OwnedTasks<UInt64>()
    /// Where the transport's close after an abort runs: the set of the session connection that
    /// made this engine, whose close awaits it (``tasks`` takes nothing once the engine ended).
    private let closings: TransportClosings
    private let taskKeys = Atomic<UInt64>(0)
    private let drops = Mutex<[(id: Int64, owner: ObjectIdentifier)]>([])
    /// How many entries ``drops`` holds, read without its lock on every table operation.
    private let pendingDrops = Atomic<Int>(0)
    /// The bytes of the answers handed to the transport since it last wrote out what it had
    /// (see ``countWrittenAnswer(_:)``).
    let writtenAnswerBytes = Atomic<Int>(0)
    /// Whether a reset of ``writtenAnswerBytes`` waits for the transport's next write.
    private let outputResetArmed = Atomic<Bool>(false)
    /// The hook of the peer's main object, once made; let go when the session ends (it holds
    /// the core).
    private let mainHook = Mutex<(hook: ImportHook?, ended: Bool)>((nil, false))
    /// The hooks of exports the peer released, waiting to be dropped after the current burst of
    /// messages (see `dropAfterBurst`), and an emptied array kept for the next burst.
    let released = Mutex<(hooks: [any StubHook], spare: [any StubHook])>(([], []))

    /// What the session records about the peer's calls; `nil` when nothing is recorded.
    let observation: SessionObservation?

    init(
        transport: any MessageTransport,
        main: (any StubHook)?,
        limits: RpcLimits,
        callTimeout: Duration? = nil,
        trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)? = nil,
        closings: TransportClosings = TransportClosings(),
        observation: SessionObservation? = nil
    ) {
        self.observation = observation
        self.transport = transport
        self.closings = closings
        self.limits = limits
        self.deadlines = callTimeout.map(CallDeadlines.init(timeout:))
        self.codec = CapnWebCodec(configuration: limits.codecConfiguration)
        self.trace = trace
        var initial = State()
        initial.exports[0] = ExportEntry(
            hook: main
                ?? ErrorHook(.thrown(.error(RpcErrorValue(message: "This connection has no main object.")))),
            refcount: 1)
        initial.imports[0] = ImportEntry(hook: nil, owner: nil, introductions: 1, pulled: false, permanent: true)
        self.state = Mutex(initial)
    }

    /// Starts processing inbound frames.
    func start() {
        transport.start { [self] event in
            switch event {
            case .message(let message):
                receive(message)
            case .closed(let closure):
                end(.failed(.connectionLost(closure.error ?? SessionClosed(closure: closure))))
            }
        }
    }

    /// The peer's main object: one hook for the life of the session, so that a call on
    /// `session.api` does not make (and drop) a hook each time.
    func mainImport() -> ImportHook {
        mainHook.withLock { main in
            if let cached = main.hook { return cached }
            let hook = ImportHook(core: self, id: 0, isPromise: false)
            // Once the session has ended nothing would let go of a cached hook.
            if !main.ended { main.hook = hook }
            return hook
        }
    }

    /// Drops the hooks of the exports the peer released in the last burst of messages, outside
    /// every lock.
    func dropReleasedHooks() {
        var dropped = released.withLock { released -> [any StubHook] in
            var taken = released.spare
            swap(&taken, &released.hooks)
            released.spare = []
            return taken
        }
        guard !dropped.isEmpty else { return }
        dropped.removeAll(keepingCapacity: true)
        released.withLock { released in
            if released.spare.capacity < dropped.capacity { released.spare = dropped }
        }
    }

    /// `(imports, exports)`, both counting the main entry.
    func stats() -> (imports: Int, exports: Int) {
        state.withLock { ($0.imports.count, $0.exports.count) }
    }

    /// Why the session ended, once it has.
    var endReason: Rejection? {
        state.withLock { $0.ended }
    }

    // MARK: Locking and the outbox

    /// Runs `body` under the mutex, then processes dropped imports and, if this call made the
    /// outbox non-empty and nobody is flushing, flushes it.
    func locked<R>(_ body: (inout State) -> R) -> R {
        let (result, flush) = state.withLock { state -> (R, Bool) in
            let result = body(&state)
            processDrops(&state)
            return (result, claimFlush(&state))
        }
        if flush { flushOutbox() }
        return result
    }

    /// Closes the session to new calls, which fail with `rejection` from now on (an HTTP batch
    /// whose request is leaving), and returns once every message sent before has reached the
    /// transport.
    ///
    /// Whoever is flushing writes what was sent before the seal (it never waits for anything);
    /// the seal waits for that flush to end, resumed by the flusher (or by the session's end).
    func seal(_ rejection: Rejection) async {
        await withCheckedContinuation { continuation in
            let flushed = state.withLock { state -> Bool in
                if state.sealed == nil { state.sealed = rejection }
                guard state.flushing, state.ended == nil else { return true }
                state.flushWaiters.append(continuation)
                return false
            }
            if flushed { continuation.resume() }
        }
    }

    /// Runs `body`, which sends several messages, and flushes what it sent in one go afterwards
    /// (unless another flush is under way, which takes it).
    func holdingFlush(_ body: () -> Void) {
        let claimed = state.withLock { state -> Bool in
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        body()
        if claimed { flushOutbox() }
    }

    private func claimFlush(_ state: inout State) -> Bool {
        guard !state.outbox.isEmpty, !state.flushing else { return false }
        state.flushing = true
        return true
    }

    private func flushOutbox() {
        // The outbox and a spare buffer trade places each round, so that steady traffic
        // appends into storage it already has instead of allocating a buffer per flush.
        // Messages are encoded into one byte buffer kept between flushes: a transport that
        // copies a message out when it is enqueued (a WebSocket on its event loop) leaves the
        // buffer to be reused, and one that keeps the message makes the next encoding start a
        // fresh buffer (copy on write), so no message is ever changed after it was enqueued.
        var written: [CapnWebMessage] = []
        var bytes: [UInt8] = []
        var flushed: [CheckedContinuation<Void, Never>] = []
        while true {
            let batch: [CapnWebMessage]? = state.withLock { state in
                if written.capacity > state.spareOutbox.capacity {
                    state.spareOutbox = written
                }
                written = []
                if bytes.capacity > state.spareBytes.capacity {
                    swap(&bytes, &state.spareBytes)
                }
                processDrops(&state)
                if state.outbox.isEmpty {
                    state.flushing = false
                    swap(&flushed, &state.flushWaiters)
                    return nil
                }
                // The answers taken now are counted as they are encoded.
                state.outboxAnswerBytes = 0
                swap(&bytes, &state.spareBytes)
                var batch = state.spareOutbox
                state.spareOutbox = []
                swap(&batch, &state.outbox)
                return batch
            }
            guard var batch else {
                for waiter in flushed { waiter.resume() }
                return
            }
            for message in batch {
                do {
                    bytes.removeAll(keepingCapacity: true)
                    try codec.encode(message, appendingTo: &bytes)
                    if let id = message.answeredExportID {
                        let pending = writtenAnswerBytes.load(ordering: .relaxed)
                        if !countWrittenAnswer(bytes.count) {
                            replaceAnswer(
                                id, of: message,
                                reason: OutputBudget.pendingRefusal(
                                    size: bytes.count, pending: pending, limit: limits.maxPendingOutputBytes,
                                    subject: OutputBudget.subject(of: message)))
                            continue
                        }
                    }
                    if let trace { trace(true, String(decoding: bytes, as: UTF8.self)) }
                    try transport.enqueue(.text(utf8: bytes))
                } catch let error as TransportError {
                    if error.code == .messageTooLarge {
                        unsendable(message, error)
                    } else {
                        end(.failed(.connectionLost(error)))
                    }
                } catch {
                    end(.failed(.connectionLost(TransportError(
                        code: .protocolViolation, message: "cannot encode \(message.tag): \(error)", cause: error))))
                }
            }
            batch.removeAll(keepingCapacity: true)
            written = batch
        }
    }

    /// Handles a message the transport refused as too large for the peer. An answer becomes a
    /// rejection of that call, which says so, and the session goes on; anything else cannot be
    /// replaced, so the session aborts (it could not keep its tables in step with the peer's).
    private func unsendable(_ message: CapnWebMessage, _ error: TransportError) {
        guard let exportID = message.answeredExportID else {
            abort("cannot send a \(message.tag) message: \(error.message)")
            return
        }
        replaceAnswer(exportID, of: message, reason: "\(OutputBudget.subject(of: message)) is too large to send: \(error.message)")
    }

    /// Sends, in place of `answer` (to export `exportID`), a rejection with `reason`.
    private func replaceAnswer(_ exportID: Int64, of answer: CapnWebMessage, reason: String) {
        let rejection = CapnWebMessage.reject(exportID: exportID, value: .error(name: "Error", message: reason))
        var bytes: [UInt8] = []
        do {
            try codec.encode(rejection, appendingTo: &bytes)
            if let trace { trace(true, String(decoding: bytes, as: UTF8.self)) }
            try transport.enqueue(.text(utf8: bytes))
        } catch {
            abort("cannot send the rejection of an answer that could not be sent: \(error)")
        }
    }

    /// Counts an encoded answer of `size` bytes toward ``RpcLimits/maxPendingOutputBytes``;
    /// `false` (and nothing counted) when it would pass the limit. An answer no larger than a
    /// rejection would be always goes. Once the count is large enough to matter, it is reset
    /// after the transport's next write (the end of the burst of messages being handled, on a
    /// WebSocket), so only what one burst produced counts, not what has left already.
    ///
    /// An answer refused here was larger than its estimate let it seem; the budget then counts
    /// as full until the reset, so that the next large answers are refused before they are built
    /// rather than after.
    func countWrittenAnswer(_ size: Int) -> Bool {
        let written = writtenAnswerBytes.load(ordering: .relaxed)
        if size > OutputBudget.alwaysSent,
            OutputBudget.sum(written, size) > limits.maxPendingOutputBytes
        {
            writtenAnswerBytes.store(max(written, limits.maxPendingOutputBytes), ordering: .relaxed)
            armOutputReset()
            return false
        }
        let total = writtenAnswerBytes.wrappingAdd(size, ordering: .relaxed).newValue
        if total >= OutputBudget.resetThreshold(limits) {
            armOutputReset()
        }
        return true
    }

    /// Resets the count of written answer bytes after the transport's next write, unless a
    /// reset is waiting already.
    private func armOutputReset() {
        guard outputResetArmed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else {
            return
        }
        transport.afterInboundBurst { [self] in
            writtenAnswerBytes.store(0, ordering: .relaxed)
            outputResetArmed.store(false, ordering: .relaxed)
        }
    }

    // MARK: Dropped imports

    /// Called from an import hook's deinit, on any thread, possibly while the mutex is held by
    /// this thread: queues the drop and processes it now if the mutex is free, later otherwise.
    func importDropped(id: Int64, hook: ObjectIdentifier) {
        drops.withLock { $0.append((id, hook)) }
        pendingDrops.add(1, ordering: .releasing)
        let processed: Bool? = state.withLockIfAvailable { state in
            processDrops(&state)
            return claimFlush(&state)
        }
        switch processed {
        case .some(true):
            flushOutbox()
        case .some(false):
            break
        case .none:
            // The mutex is held (by this thread, inside a transition, or by another): the drop
            // is processed by the next transition, or, if none comes, by this task, which the
            // session owns (its task set has a lock of its own, not the mutex). It takes the
            // mutex once and ends. Once the session has ended none starts: its tables are
            // emptied, and a drop has nothing left to release.
            spawn { [self] in locked { _ in } }
        }
    }

    private func processDrops(_ state: inout State) {
        guard pendingDrops.load(ordering: .acquiring) > 0 else { return }
        let pending = drops.withLock { drops -> [(id: Int64, owner: ObjectIdentifier)] in
            defer { drops.removeAll() }
            return drops
        }
        pendingDrops.subtract(pending.count, ordering: .relaxed)
        for (id, owner) in pending {
            guard let entry = state.imports[id], !entry.permanent, entry.owner == owner else { continue }
            state.imports[id] = nil
            if state.ended == nil, !entry.isStream {
                state.outbox.append(.release(importID: id, refcount: entry.introductions))
            }
        }
    }

    // MARK: Ending

    /// Ends the session: every import rejects with `rejection`, every export is dropped (local
    /// targets are disposed once nothing else holds them), and nothing more is sent.
    func end(_ rejection: Rejection) {
        let taken = state.withLock { state -> (State, Bool)? in
            guard state.ended == nil else { return nil }
            state.ended = rejection
            let old = state
            // Only the main entries remain, as after a clean release of everything.
            state.imports = [0: ImportEntry(hook: nil, owner: nil, introductions: 1, pulled: false, permanent: true)]
            state.exports = [0: ExportEntry(hook: ErrorHook(rejection), refcount: 1)]
            state.unpulledBytes = 0
            state.releasedRunningCount = 0
            state.outboxAnswerBytes = 0
            state.outbox = []
            state.idleWaiters = []
            state.flushWaiters = []
            state.endWaiters = []
            state.brokenHandlers = []
            state.unanswered = []
            return (old, true)
        }
        guard let (old, _) = taken else { return }
        let main = mainHook.withLock { main -> ImportHook? in
            defer { main = (nil, true) }
            return main.hook
        }
        _ = consume main
        deadlines?.close()
        // The session's own tasks end at their next suspension point; none starts any more.
        tasks.abandon()
        // Calls the peer made that are still running are of no use to anyone now.
        for entry in old.exports.values {
            (entry.hook as? LocalPromiseHook)?.cancelRunning()
        }
        for promise in old.releasedRunning {
            promise.cancelRunning()
        }
        for entry in old.imports.values {
            entry.resolution?.settle(.failure(rejection))
        }
        for waiter in old.idleWaiters { waiter.resume() }
        for waiter in old.flushWaiters { waiter.resume() }
        for waiter in old.endWaiters { waiter.resume() }
        let error = rejection.rpcError
        for handler in old.brokenHandlers { handler(error) }
        _ = consume old
        dropReleasedHooks()
    }

    /// Keeps a call the peer released while it still runs (one it never pulled, or whose value
    /// something else here still waits for), so that the session's end cancels it like the calls
    /// still in the table: no task the session started outlives it. Finished calls are dropped
    /// from the list whenever it has doubled since the last time.
    ///
    /// Until it finishes, such a call counts toward ``RpcLimits/maxTableEntries`` as an entry of
    /// the export table.
    func keepUntilEnd(_ promise: LocalPromiseHook) {
        let ended = state.withLock { state -> Bool in
            guard state.ended == nil else { return true }
            state.releasedRunningCount += 1
            state.releasedRunning.append(promise)
            if state.releasedRunning.count >= state.releasedRunningPurgeAt {
                state.releasedRunning.removeAll { !$0.isRunning }
                state.releasedRunningPurgeAt = max(16, state.releasedRunning.count * 2)
            }
            return false
        }
        if ended {
            promise.cancelRunning()
            return
        }
        promise.whenFinished(counting: self)
    }

    /// A call counted by ``keepUntilEnd(_:)`` has finished.
    func releasedCallFinished() {
        state.withLock { state in
            state.releasedRunningCount = max(0, state.releasedRunningCount - 1)
        }
    }

    /// Aborts after a local fatal error: sends `["abort", error]`, closes the transport with
    /// code 3000 and the message as reason, and ends the session.
    func abort(_ message: String) {
        let error = RpcErrorValue(message: message)
        let sent = locked { state -> Bool in
            guard state.ended == nil else { return false }
            state.outbox.append(.abort(.error(name: error.name, message: error.message)))
            return true
        }
        guard sent else { return }
        end(.failed(.connectionLost(error)))
        closeTransport(reason: message)
    }

    /// Closes the transport with code 3000 and `reason` once the session has ended on an abort
    /// (its own or the peer's), without waiting: the abort happens on the path that reads or
    /// writes, which must not wait for a close handshake.
    ///
    /// The close runs in a task of ``closings``, owned by the session connection that made this
    /// engine: closing the session awaits it (within the close's limit, if it has one).
    func closeTransport(reason: String) {
        closings.close(transport, code: .applicationError, reason: reason)
    }

    /// Shuts the session down without an abort message, as disposing the main stub does (which
    /// closes with code 3000, the default).
    func shutdown(reason: String, code: CloseCode = .applicationError) async {
        end(.failed(.connectionLost(RpcErrorValue(message: reason))))
        await transport.close(code: code, reason: reason)
    }

    /// Waits until every export the peer pulled has been answered (or the session ended).
    func drain() async {
        await withCheckedContinuation { continuation in
            let ready = locked { state -> Bool in
                if state.ended != nil || state.unanswered.isEmpty { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Waits until the session ends.
    func waitUntilEnded() async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> Bool in
                if state.ended != nil { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// Registers `handler` to run once when the session ends; at once if it already has.
    func onBroken(_ handler: @escaping @Sendable (RpcError) -> Void) {
        let ended: Rejection? = state.withLock { state in
            if let ended = state.ended { return ended }
            state.brokenHandlers.append(handler)
            return nil
        }
        if let ended { handler(ended.rpcError) }
    }

    /// Runs `operation` as a task the session owns (in its ``OwnedTasks``): it is cancelled when
    /// the session ends. Returns the task's key, for ``cancelTask(_:)``, or `nil` (and nothing
    /// runs) once the session has ended.
    @discardableResult
    func spawn(_ operation: @escaping @Sendable () async -> Void) -> UInt64? {
        let key = taskKeys.wrappingAdd(1, ordering: .relaxed).newValue
        return tasks.spawn(key, operation) ? key : nil
    }

    /// Cancels the session's task with `key`, if it still runs.
    func cancelTask(_ key: UInt64) {
        tasks.cancel(key)
    }
}

/// The transport closed without an error: the peer closed the connection.
struct SessionClosed: Error, CustomStringConvertible {
    let closure: TransportClosure

    var description: String {
        "Peer closed WebSocket: \(closure.code.map { String($0.rawValue) } ?? "1006") \(closure.reason)"
    }
}
