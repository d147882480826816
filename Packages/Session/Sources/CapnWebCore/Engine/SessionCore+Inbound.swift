import Synchronization
internal import RpcTransport
internal import RpcWire

/// A fatal protocol error found while processing a frame; the session aborts with `message`.
struct ProtocolViolation: Error {
    let message: String
}

extension SessionCore {
    /// Processes one inbound frame.
    func receive(_ frame: TransportMessage) {
        if let trace { trace(false, String(decoding: frame.bytes, as: UTF8.self)) }
        guard frame.kind == .text else {
            abort("bad RPC message: binary frames are not part of the protocol")
            return
        }
        let message: CapnWebMessage
        do {
            message = try codec.decode(frame.bytes)
        } catch {
            abort("bad RPC message: \(error)")
            return
        }
        do {
            try receive(consume message, size: frame.bytes.count)
        } catch let violation as ProtocolViolation {
            abort(violation.message)
        } catch {
            abort("bad RPC message: \(error)")
        }
    }

    /// Processes one decoded message, `size` bytes long on the wire; its parts are moved out of
    /// it, not copied.
    func receive(_ message: consuming CapnWebMessage, size: Int = 0) throws {
        switch consume message {
        case .push(let expression):
            try receivePush(expression, isStream: false, size: size)
        case .stream(let expression):
            try receivePush(expression, isStream: true, size: size)
        case .pull(let id):
            try receivePull(id)
        case .resolve(let id, let value):
            try receiveSettlement(id, value, rejected: false)
        case .reject(let id, let value):
            try receiveSettlement(id, value, rejected: true)
        case .release(let id, let count):
            try receiveRelease(id, count)
        case .abort(let value):
            receiveAbort(value)
        case .pipe:
            try receivePipe()
        }
    }

    /// The value of an outcome computed under the lock, moved out of it rather than copied (so
    /// its references are not retained and released again); `nil` when there is none, and the
    /// violation thrown.
    private static func take<Value>(
        _ outcome: consuming Result<Value, ProtocolViolation>?
    ) throws(ProtocolViolation) -> Value? {
        switch consume outcome {
        case nil: return nil
        case .success(let value)?: return value
        case .failure(let violation)?: throw violation
        }
    }

    // MARK: push and stream

    /// A push the peer has not pulled yet holds what its message carried and its result until
    /// it pulls or releases it: `size`, and the result's size once it is known, count toward
    /// ``RpcLimits/maxUnpulledBytes``, so a peer that pushes large values (or calls that make
    /// them) and never pulls them cannot grow the session without bound. A `stream` message is
    /// answered without a pull and does not count.
    private func receivePush(_ expression: CapnWebExpression, isStream: Bool, size: Int) throws {
        let held = isStream ? 0 : size
        let outcome = locked { state -> Result<(Int64, PushPlan), ProtocolViolation>? in
            guard state.ended == nil else { return nil }
            if let full = tableFull(state) { return .failure(full) }
            let unpulled = OutputBudget.sum(state.unpulledBytes, held)
            guard unpulled <= limits.maxUnpulledBytes else {
                return .failure(
                    ProtocolViolation(
                        message: "pushes whose results were never pulled hold \(unpulled) bytes "
                            + "(the limit is \(limits.maxUnpulledBytes))"))
            }
            let id = state.nextPeerID
            state.nextPeerID += 1
            var evaluator = Evaluator(core: self)
            do throws(ProtocolViolation) {
                return .success((id, try evaluator.plan(expression, state: &state)))
            } catch {
                return .failure(error)
            }
        }
        guard let (id, plan) = try Self.take(outcome) else { return }
        let hook: any StubHook
        if let observation {
            hook = SessionObservation.$current.withValue(observation) { plan.run() }
        } else {
            hook = plan.run()
        }
        // A result known already counts at once; one still being computed, once it is.
        var resultBytes = 0
        var computing: LocalPromiseHook?
        if !isStream {
            switch HeldResult(of: hook) {
            case .settled(let settlement):
                resultBytes = WireSizeEstimate.measureHeld(settlement, limit: limits.maxUnpulledBytes)
            case .computing(let promise):
                computing = promise
            case .none:
                break
            }
        }
        let stored = try locked { state -> Result<Bool, ProtocolViolation> in
            guard state.ended == nil else { return .success(false) }
            let unpulled = OutputBudget.sum(held, resultBytes)
            state.exports[id] = ExportEntry(
                hook: hook, refcount: 1, pulled: isStream, dropAfterAnswer: isStream, unpulledBytes: unpulled)
            state.unpulledBytes = OutputBudget.sum(state.unpulledBytes, unpulled)
            if isStream { state.unanswered.insert(id) }
            if let over = unpulledOverLimit(state) { return .failure(over) }
            return .success(true)
        }.get()
        if stored, isStream {
            hook.whenSettled(answering: id, of: self)
        }
        if stored, let computing {
            computing.whenSettled(countingUnpulled: id, of: self)
        }
    }

    /// Why the export table cannot take another entry, if it cannot: the calls the peer released
    /// while they still run count as entries too, so that a peer pushing and releasing calls that
    /// never end cannot make the session hold any number of them.
    private func tableFull(_ state: State) -> ProtocolViolation? {
        let entries = OutputBudget.sum(state.exports.count, state.releasedRunningCount)
        guard entries >= limits.maxTableEntries else { return nil }
        return ProtocolViolation(
            message: "export table is full (\(limits.maxTableEntries) entries, \(state.releasedRunningCount) of them "
                + "calls released while still running)")
    }

    /// Why the bytes held for unpulled pushes are too many, if they are.
    private func unpulledOverLimit(_ state: State) -> ProtocolViolation? {
        guard state.unpulledBytes > limits.maxUnpulledBytes else { return nil }
        return ProtocolViolation(
            message: "pushes whose results were never pulled hold \(state.unpulledBytes) bytes with their results "
                + "(the limit is \(limits.maxUnpulledBytes))")
    }

    /// Counts the result of push `id`, now settled, toward ``RpcLimits/maxUnpulledBytes`` while
    /// the peer has neither pulled nor released it; past the limit the session aborts.
    func countUnpulledResult(_ id: Int64, _ settlement: Settlement) {
        let size = WireSizeEstimate.measureHeld(settlement, limit: limits.maxUnpulledBytes)
        let over = locked { state -> ProtocolViolation? in
            guard state.ended == nil, var entry = state.exports[id], !entry.pulled else { return nil }
            entry.unpulledBytes = OutputBudget.sum(entry.unpulledBytes, size)
            state.exports[id] = entry
            state.unpulledBytes = OutputBudget.sum(state.unpulledBytes, size)
            return unpulledOverLimit(state)
        }
        if let over { abort(over.message) }
    }

    // MARK: pull

    private func receivePull(_ id: Int64) throws {
        let hook = try locked { state -> Result<(any StubHook)?, ProtocolViolation> in
            guard state.ended == nil else { return .success(nil) }
            guard var entry = state.exports[id] else {
                return .failure(ProtocolViolation(message: "no such export ID: \(id)"))
            }
            guard !entry.pulled else { return .success(nil) }
            entry.pulled = true
            state.unpulledBytes -= entry.unpulledBytes
            entry.unpulledBytes = 0
            state.exports[id] = entry
            state.unanswered.insert(id)
            return .success(entry.hook)
        }.get()
        hook?.whenSettled(answering: id, of: self)
    }

    /// Sends the settlement of export `id`, if the peer still holds it.
    func answer(_ id: Int64, _ settlement: Settlement) {
        var effects: [SessionEffect] = []
        let dropped = locked { state -> ExportEntry? in
            guard state.ended == nil, let entry = state.exports[id] else { return nil }
            var serializer = Serializer(core: self)
            let message: CapnWebMessage
            // Measured before it is built: an answer that cannot be sent, or that would take the
            // answers waiting for the transport past their limit, is refused now, so that however
            // often a large value is asked for, it is built at most as often as the limit allows.
            let pending = OutputBudget.sum(writtenAnswerBytes.load(ordering: .relaxed), state.outboxAnswerBytes)
            let room = OutputBudget.room(limits, pending: pending)
            let size: Int
            switch settlement {
            case .success(let value): size = WireSizeEstimate.measure(value, limit: room)
            case .failure(let rejection): size = WireSizeEstimate.measure(rejection, limit: room)
            }
            if size > room {
                let rejecting: Bool
                if case .failure = settlement { rejecting = true } else { rejecting = false }
                message = .reject(
                    exportID: id,
                    value: .error(
                        name: "Error",
                        message: OutputBudget.refusal(rejecting: rejecting, size: size, pending: pending, limits: limits)))
            } else {
                state.outboxAnswerBytes = OutputBudget.sum(state.outboxAnswerBytes, size)
                switch settlement {
                case .success(let value):
                    do throws(SerializationError) {
                        message = .resolve(exportID: id, value: try serializer.serialize(value, state: &state))
                    } catch {
                        message = .reject(
                            exportID: id,
                            value: .error(name: "TypeError", message: "Cannot serialize value: \(error.message)"))
                    }
                case .failure(let rejection):
                    let value = (try? serializer.serialize(rejection.wireValue, state: &state))
                        ?? .error(name: "Error", message: "unserializable rejection")
                    message = .reject(exportID: id, value: value)
                }
            }
            effects = serializer.effects
            state.outbox.append(message)
            state.unanswered.remove(id)
            if state.unanswered.isEmpty, !state.idleWaiters.isEmpty {
                effects.append(.resumeIdle(state.idleWaiters))
                state.idleWaiters = []
            }
            if entry.dropAfterAnswer {
                return state.exports.removeValue(forKey: id)
            }
            return nil
        }
        _ = dropped
        perform(effects)
    }

    // MARK: resolve and reject

    private func receiveSettlement(_ id: Int64, _ expression: CapnWebExpression, rejected: Bool) throws {
        let outcome = locked { state -> Result<(LocalPromiseHook?, PushPlan), ProtocolViolation>? in
            guard state.ended == nil else { return nil }
            var evaluator = Evaluator(core: self)
            let value: PushPlan
            do throws(ProtocolViolation) {
                value = try evaluator.value(expression, state: &state)
            } catch {
                return .failure(error)
            }
            guard let entry = state.imports[id], !entry.permanent else { return .success((nil, value)) }
            state.imports[id] = nil
            if !entry.isStream {
                state.outbox.append(.release(importID: id, refcount: entry.introductions))
            }
            return .success((entry.resolution, value))
        }
        guard let (resolution, plan) = try Self.take(outcome) else { return }
        plan.runDeferred()
        guard let resolution, case .value(let value, _) = plan else { return }
        perform(.settle(resolution, rejected ? .failure(.thrown(value)) : .success(value)))
    }

    // MARK: release, abort, pipe

    private func receiveRelease(_ id: Int64, _ count: Int64) throws {
        var idle: SessionEffect?
        var unanswered = false
        let removed = try locked { state -> Result<ExportEntry?, ProtocolViolation> in
            guard state.ended == nil else { return .success(nil) }
            guard var entry = state.exports[id] else {
                return .failure(ProtocolViolation(message: "no such export ID: \(id)"))
            }
            guard count > 0, count <= entry.refcount else {
                return .failure(ProtocolViolation(message: "refcount would go negative"))
            }
            if id == 0 { return .success(nil) }
            entry.refcount -= count
            if entry.refcount == 0 {
                // Released before its answer was sent: it never will be.
                if state.unanswered.remove(id) != nil {
                    unanswered = true
                    if state.unanswered.isEmpty, !state.idleWaiters.isEmpty {
                        idle = .resumeIdle(state.idleWaiters)
                        state.idleWaiters = []
                    }
                }
                state.unpulledBytes -= entry.unpulledBytes
                return .success(state.exports.removeValue(forKey: id))
            }
            state.exports[id] = entry
            return .success(nil)
        }.get()
        if let removed {
            // The peer asked for the answer and then gave it up (the JS client disposing a
            // pending promise, a Swift caller's task cancelled): the call's task is cancelled
            // unless something else here still waits for its value.
            if let promise = removed.hook as? LocalPromiseHook {
                if unanswered {
                    promise.abandon(answering: id, of: self)
                } else if !removed.pulled {
                    promise.stopCounting(id, of: self)
                }
                if promise.isRunning { keepUntilEnd(promise) }
            }
            dropAfterBurst(removed.hook)
        }
        if let idle { perform(idle) }
    }

    /// Keeps the hook of a released export until the transport has written the answers to the
    /// current burst of messages, then drops it, outside the lock: its deinit (a target's
    /// `dispose()`, releases of what it held) is then off the path between a read and the
    /// reply. The tables changed already; only the freeing waits.
    private func dropAfterBurst(_ hook: any StubHook) {
        let first = released.withLock { released -> Bool in
            released.hooks.append(hook)
            return released.hooks.count == 1
        }
        if first {
            transport.afterInboundBurst { [self] in dropReleasedHooks() }
        }
    }

    private func receiveAbort(_ expression: CapnWebExpression) {
        let error: RpcErrorValue
        if case .error(let name, let message, let stack, _) = expression {
            error = RpcErrorValue(name: name, message: message, stack: stack)
        } else {
            error = RpcErrorValue(message: "peer aborted: \(expression)")
        }
        end(.failed(.connectionLost(error)))
        closeTransport(reason: error.message)
    }

    private func receivePipe() throws {
        try locked { state -> Result<Void, ProtocolViolation> in
            guard state.ended == nil else { return .success(()) }
            if let full = tableFull(state) { return .failure(full) }
            let id = state.nextPeerID
            state.nextPeerID += 1
            let (readable, continuation) = RpcReadableStream.makeStream()
            state.exports[id] = ExportEntry(
                hook: TargetHook(PipeTarget(continuation)), refcount: 1, pipe: readable)
            return .success(())
        }.get()
    }
}
