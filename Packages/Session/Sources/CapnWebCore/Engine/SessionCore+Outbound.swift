internal import RpcWire

extension SessionCore {
    private enum PushOutcome {
        case sent(any StubHook)
        /// The target's resolution has arrived: apply the operation to it locally.
        case local
    }

    /// Sends a pipelined operation (`push`) on one of our imports and returns the import for
    /// its result; with `pulled`, asks for the result at once (a `pull` after the `push`, in
    /// the same flush).
    func push(_ operation: SessionOperation, pulled: Bool = false) -> any StubHook {
        send(operation, asStream: false, pulled: pulled)
    }

    /// Sends an operation as a `stream` message: already pulled, dropped by the peer once
    /// settled, never pipelined on.
    func sendStream(_ operation: SessionOperation) -> any StubHook {
        send(operation, asStream: true)
    }

    private func send(_ operation: SessionOperation, asStream: Bool, pulled: Bool = false) -> any StubHook {
        var effects: [SessionEffect] = []
        let target = operation.target
        let outcome = locked { state -> PushOutcome in
            if let ended = state.sealed ?? state.ended { return .sent(ErrorHook(ended)) }
            guard let entry = state.imports[target.id],
                entry.permanent || entry.owner == ObjectIdentifier(target)
            else { return .local }
            guard state.imports.count < limits.maxTableEntries else {
                return .sent(ErrorHook(.failed(.rejectedLocally("import table is full", type: "RangeError"))))
            }
            var serializer = Serializer(core: self)
            let expression: CapnWebExpression
            do throws(SerializationError) {
                switch operation {
                case .call(_, let path, let arguments):
                    var values: [CapnWebExpression] = []
                    values.reserveCapacity(arguments.count)
                    for argument in arguments {
                        values.append(try serializer.serialize(argument, state: &state))
                    }
                    expression = .pipeline(target.id, path: path, arguments: values)
                case .get(_, let path):
                    expression = .pipeline(target.id, path: path)
                case .map(_, let path, let recording):
                    var captures: [CapnWebCapture] = []
                    for capture in recording.captures {
                        captures.append(try serializer.capture(capture, state: &state))
                    }
                    expression = .remap(
                        target.id, path: path, captures: captures, instructions: recording.instructions)
                }
            } catch {
                effects = serializer.effects
                return .sent(ErrorHook(.failed(.rejectedLocally("Cannot serialize value: \(error.message)"))))
            }
            effects = serializer.effects
            let id = state.nextImportID
            state.nextImportID += 1
            let hook = ImportHook(core: self, id: id, isPromise: true)
            state.imports[id] = ImportEntry(
                hook: nil, owner: ObjectIdentifier(hook), introductions: 1, pulled: asStream || pulled,
                isStream: asStream, resolution: hook.resolution)
            state.outbox.append(asStream ? .stream(expression) : .push(expression))
            if pulled, !asStream { state.outbox.append(.pull(importID: id)) }
            return .sent(hook)
        }
        perform(effects)
        switch outcome {
        case .sent(let hook):
            // A call that left gets a client span when the session traces; one check otherwise.
            if let observation, observation.tracesClientCalls, !asStream, case .call(_, let path, _) = operation,
                let sent = hook as? ImportHook
            {
                observation.clientCall(path, answeredBy: sent.resolution)
            }
            return hook
        case .local:
            return operation.apply(to: localTarget(of: target))
        }
    }

    /// Where operations on an import go once its entry has left the table.
    func localTarget(of hook: ImportHook) -> any StubHook {
        if hook.isPromise { return hook.resolution }
        if let ended = endReason { return ErrorHook(ended) }
        return ErrorHook(.failed(.connectionLost(RpcErrorValue(message: "stub was released"))))
    }

    /// Asks the peer for the resolution of a promise import, once.
    func pull(_ hook: ImportHook) {
        let effect = locked { state -> SessionEffect? in
            guard state.ended == nil, var entry = state.imports[hook.id],
                entry.owner == ObjectIdentifier(hook), !entry.pulled
            else { return nil }
            // An HTTP batch whose request has left cannot ask for anything more.
            if let sealed = state.sealed { return .settle(hook.resolution, .failure(sealed)) }
            entry.pulled = true
            state.imports[hook.id] = entry
            state.outbox.append(.pull(importID: hook.id))
            return nil
        }
        if let effect { perform(effect) }
    }

    /// Opens a pipe to the peer (`["pipe"]`); called while serializing, under the mutex.
    func openPipe(state: inout State) -> ImportHook {
        let id = state.nextImportID
        state.nextImportID += 1
        let hook = ImportHook(core: self, id: id, isPromise: false)
        state.imports[id] = ImportEntry(hook: nil, owner: ObjectIdentifier(hook), introductions: 1, pulled: false)
        state.outbox.append(.pipe)
        return hook
    }

    /// Copies a local readable stream into a pipe the peer reads, then releases the pipe.
    ///
    /// When the peer rejects a write (its reader went away) the copy stops reading `readable`,
    /// so the local producer sees its stream terminated, rather than producing into the void.
    func pump(_ readable: RpcReadableStream, into pipe: ImportHook) {
        let window = max(1, limits.streamWindow)
        let control = PumpControl()
        let copier = spawn { [self] in
            await copy(readable, into: pipe, window: window, control: control)
        }
        if let copier { control.attach { [weak self] in self?.cancelTask(copier) } }
    }

    private func copy(_ readable: RpcReadableStream, into pipe: ImportHook, window: Int, control: PumpControl) async {
        var inFlight: [any StubHook] = []
        do {
            for try await chunk in readable {
                let write = sendStream(.call(target: pipe, path: ["write"], arguments: [chunk]))
                write.whenSettled { settlement in
                    if case .failure = settlement { control.stop() }
                }
                inFlight.append(write)
                if inFlight.count >= window {
                    if case .failure(let rejection) = await inFlight.removeFirst().settled() {
                        throw rejection
                    }
                }
                if control.isStopped { return }
            }
            if control.isStopped { return }
            let close = sendStream(.call(target: pipe, path: ["close"], arguments: []))
            _ = await close.settled()
        } catch {
            if control.isStopped { return }
            let reason = Rejection(error).wireValue
            _ = sendStream(.call(target: pipe, path: ["abort"], arguments: [reason]))
        }
    }
}
