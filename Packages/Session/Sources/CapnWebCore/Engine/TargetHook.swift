@_spi(RpcImplementation) internal import RpcTransport
internal import RpcWire

/// A local ``RpcTarget`` behind a stub. Each time a target is wrapped it gets a hook of its
/// own; when the last stub to that hook goes away (locally and remotely) the target's
/// ``RpcTarget/dispose()`` runs.
final class TargetHook: StubHook {
    let target: any RpcTarget

    init(_ target: any RpcTarget) {
        self.target = target
    }

    /// The executor of the transport delivering on the calling thread (a connection's event
    /// loop), if any: a task started for a call prefers it, so the call runs and answers there.
    private func callingLoop() -> (any TaskExecutor)? {
        DeliveryExecutor.current
    }

    deinit {
        target.dispose()
    }

    var isPromise: Bool { false }

    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) {
        body(.success(.stub(RpcStub(hook: self))))
    }

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        // A session that records calls measures those on its own objects (a longer path ends in
        // one of the two cases below, measured there).
        if path.count < 2, let observation = SessionObservation.active {
            let method: String
            if case .property(let name) = path.first { method = name } else { method = "()" }
            return observation.observe(method) { dispatch(path, arguments) }
        }
        return dispatch(path, arguments)
    }

    private func dispatch(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        let target = self.target
        switch path.count {
        case 0:
            let executor = callingLoop()
            return LocalPromiseHook.run { promise in
                ImmediateTask.start(preferring: executor) {
                    await promise.settle {
                        try await target.invoke(with: RpcArguments(try await Substitution.resolve(arguments)))
                    }
                }
            }
        case 1:
            guard case .property(let method) = path[0], !PathWalk.isInheritedName(method) else {
                return ErrorHook(.thrown(.error(.notAFunction(PathWalk.describe(path)))))
            }
            if !arguments.contains(where: Substitution.needed) {
                // Settled arguments: the target may answer at once, with no task (nor a look-up
                // of the loop a task would prefer).
                let settled = RpcArguments(arguments)
                do {
                    if let value = try target.callImmediately(method, with: settled) {
                        return SettledHook.resolved(value)
                    }
                } catch {
                    return ErrorHook(Rejection(error))
                }
                let executor = callingLoop()
                return LocalPromiseHook.run { promise in
                    ImmediateTask.start(preferring: executor) {
                        await promise.settle { try await target.call(method, with: settled) }
                    }
                }
            }
            // Promises among the arguments: the offer to answer at once comes once they settle.
            let executor = callingLoop()
            return LocalPromiseHook.run { promise in
                ImmediateTask.start(preferring: executor) {
                    await promise.settle {
                        let settled = RpcArguments(try await Substitution.resolve(arguments))
                        if let value = try target.callImmediately(method, with: settled) { return value }
                        return try await target.call(method, with: settled)
                    }
                }
            }
        default:
            let holder = get(Array(path.dropLast()))
            return holder.call([path[path.count - 1]], arguments)
        }
    }

    func get(_ path: [CapnWebPathKey]) -> any StubHook {
        guard let first = path.first else {
            return PayloadHook(.stub(RpcStub(hook: self)))
        }
        guard case .property(let name) = first, !PathWalk.isInheritedName(name) else {
            // Nothing there: the rest of the path is read from `undefined`.
            return PayloadHook(.undefined).get(Array(path.dropFirst()))
        }
        let target = self.target
        let property: any StubHook
        do {
            if let value = try target.propertyImmediately(name) {
                property = SettledHook.resolved(value)
            } else {
                let executor = callingLoop()
                property = LocalPromiseHook.run { promise in
                    ImmediateTask.start(preferring: executor) { await promise.settle { try await target.property(name) } }
                }
            }
        } catch {
            return ErrorHook(Rejection(error))
        }
        guard path.count > 1 else { return property }
        return property.get(Array(path.dropFirst()))
    }

    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook {
        if path.isEmpty {
            return MapApplication.apply(recording, to: .stub(RpcStub(hook: self)))
        }
        return get(path).map([], recording)
    }
}
