internal import RpcWire

/// Turns received expressions into payloads, under the session's mutex: looks up and creates
/// table entries, and records the operations it meets for ``PushPlan`` to run afterwards.
struct Evaluator {
    let core: SessionCore
    private var deferred: [PushPlan.Deferred] = []

    init(core: SessionCore) {
        self.core = core
    }

    /// Evaluates the expression of a `push` or `stream`.
    mutating func plan(
        _ expression: CapnWebExpression, state: inout SessionCore.State
    ) throws(ProtocolViolation) -> PushPlan {
        switch expression {
        case .pipeline(let id, let path, let arguments), .import(let id, let path, let arguments):
            let base = try export(id, state: state)
            let kind: PushPlan.Operation.Kind
            if let arguments {
                kind = .call(try evaluateAll(arguments, state: &state))
            } else {
                kind = .get
            }
            return .operation(PushPlan.Operation(base: base, path: path ?? [], kind: kind), deferred: deferred)
        case .remap(let id, let path, let captures, let instructions):
            let base = try export(id, state: state)
            let recording = MapRecording(
                captures: try captures.map { capture throws(ProtocolViolation) in
                    try self.capture(capture, state: &state)
                },
                instructions: instructions)
            return .operation(PushPlan.Operation(base: base, path: path, kind: .map(recording)), deferred: deferred)
        default:
            return .value(try evaluate(expression, state: &state), deferred: deferred)
        }
    }

    /// Evaluates a resolution, a rejection or any other value.
    mutating func value(
        _ expression: CapnWebExpression, state: inout SessionCore.State
    ) throws(ProtocolViolation) -> PushPlan {
        .value(try evaluate(expression, state: &state), deferred: deferred)
    }

    private mutating func evaluateAll(
        _ expressions: [CapnWebExpression], state: inout SessionCore.State
    ) throws(ProtocolViolation) -> [RpcPayload] {
        var values: [RpcPayload] = []
        values.reserveCapacity(expressions.count)
        for expression in expressions {
            values.append(try evaluate(expression, state: &state))
        }
        return values
    }

    mutating func evaluate(
        _ expression: CapnWebExpression, state: inout SessionCore.State
    ) throws(ProtocolViolation) -> RpcPayload {
        switch expression {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .array(let elements): return .array(try evaluateAll(elements, state: &state))
        case .object(let members):
            var result: [RpcPayload.Member] = []
            result.reserveCapacity(members.count)
            for member in members {
                let value = try evaluate(member.value, state: &state)
                if !PathWalk.isInheritedName(member.key) {
                    result.append(RpcPayload.Member(member.key, value))
                }
            }
            return .object(result)
        case .undefined: return .undefined
        case .infinity: return .double(.infinity)
        case .negativeInfinity: return .double(-.infinity)
        case .nan: return .double(.nan)
        case .bigint(let digits): return .bigint(digits)
        case .date(let milliseconds): return .date(milliseconds)
        case .bytes(let bytes, let type): return .bytes(bytes, type: type)
        case .error(let name, let message, let stack, let properties):
            var props: [RpcPayload.Member]?
            if let properties {
                var evaluated: [RpcPayload.Member] = []
                for member in properties {
                    evaluated.append(RpcPayload.Member(member.key, try evaluate(member.value, state: &state)))
                }
                props = evaluated
            }
            return .error(RpcErrorValue(name: name, message: message, stack: stack, properties: props))
        case .url(let href): return .url(href)
        case .headers(let headers): return .headers(headers)
        case .request(let url, let requestInit):
            let body = try requestInit.body.map { body throws(ProtocolViolation) in
                try evaluate(body, state: &state)
            }
            return .request(url: url, init: requestInit, body: body)
        case .response(let body, let responseInit):
            return .response(body: try evaluate(body, state: &state), init: responseInit)
        case .blob(let mimeType, let pipe):
            return .blob(mimeType: mimeType, try takePipe(pipe, state: &state))
        case .readable(let pipe):
            return .readable(try takePipe(pipe, state: &state))
        case .writable(let id):
            let hook = try importStub(id, state: &state)
            return .writable(RpcWritableStream(sink: RemoteWritableSink(hook: hook)))
        case .export(let id):
            return .stub(RpcStub(hook: try importStub(id, state: &state)))
        case .promise(let id):
            return .stub(RpcStub(hook: try importPromise(id, state: &state), awaitsDelivery: true))
        case .import(let id, let path, let arguments):
            return try reference(id, path, arguments, awaits: false, state: &state)
        case .pipeline(let id, let path, let arguments):
            return try reference(id, path, arguments, awaits: true, state: &state)
        case .remap(let id, let path, let captures, let instructions):
            let base = try export(id, state: state)
            var hooks: [RpcStub] = []
            for capture in captures {
                hooks.append(try self.capture(capture, state: &state))
            }
            let placeholder = LocalPromiseHook()
            deferred.append(
                PushPlan.Deferred(
                    placeholder: placeholder,
                    operation: PushPlan.Operation(
                        base: base, path: path,
                        kind: .map(MapRecording(captures: hooks, instructions: instructions)))))
            return .stub(RpcStub(hook: placeholder, awaitsDelivery: true))
        }
    }

    private mutating func reference(
        _ id: Int64, _ path: [CapnWebPathKey]?, _ arguments: [CapnWebExpression]?, awaits: Bool,
        state: inout SessionCore.State
    ) throws(ProtocolViolation) -> RpcPayload {
        let base = try export(id, state: state)
        guard let arguments else {
            return .stub(RpcStub(hook: base, path: path ?? [], awaitsDelivery: awaits))
        }
        let values = try evaluateAll(arguments, state: &state)
        let placeholder = LocalPromiseHook()
        deferred.append(
            PushPlan.Deferred(
                placeholder: placeholder,
                operation: PushPlan.Operation(base: base, path: path ?? [], kind: .call(values))))
        return .stub(RpcStub(hook: placeholder, awaitsDelivery: awaits))
    }

    private mutating func capture(
        _ capture: CapnWebCapture, state: inout SessionCore.State
    ) throws(ProtocolViolation) -> RpcStub {
        switch capture {
        case .import(let id): RpcStub(hook: try export(id, state: state))
        case .export(let id): RpcStub(hook: try importStub(id, state: &state))
        }
    }

    private func export(_ id: Int64, state: SessionCore.State) throws(ProtocolViolation) -> any StubHook {
        guard let entry = state.exports[id] else {
            throw ProtocolViolation(message: "no such entry on exports table: \(id)")
        }
        return entry.hook
    }

    private func takePipe(_ id: Int64, state: inout SessionCore.State) throws(ProtocolViolation) -> RpcReadableStream {
        guard var entry = state.exports[id], let readable = entry.pipe else {
            throw ProtocolViolation(message: "no such pipe: \(id)")
        }
        entry.pipe = nil
        state.exports[id] = entry
        return readable
    }

    /// The import for a stub the peer exported (`["export", ID]`), counting the introduction.
    private func importStub(_ id: Int64, state: inout SessionCore.State) throws(ProtocolViolation) -> ImportHook {
        if var entry = state.imports[id] {
            guard !entry.permanent else { return core.mainImport() }
            // A promise's ID stays the promise's until it settles: introducing it again as a
            // stub would reuse its entry for a stub, and the promise could then never settle.
            guard entry.resolution == nil else {
                throw ProtocolViolation(message: "ID \(id) names a promise and cannot be introduced again as a stub")
            }
            // Checked: the count is sent back with the release, and it cannot pass Int64.max.
            let (introductions, overflow) = entry.introductions.addingReportingOverflow(1)
            guard !overflow else {
                throw ProtocolViolation(message: "ID \(id) was introduced more times than can be counted")
            }
            entry.introductions = introductions
            if let hook = entry.hook {
                state.imports[id] = entry
                return hook
            }
            // The previous hook is being dropped; its drop is skipped, so the new entry carries
            // the earlier introductions too.
            let hook = ImportHook(core: core, id: id, isPromise: false)
            entry.hook = hook
            entry.owner = ObjectIdentifier(hook)
            state.imports[id] = entry
            return hook
        }
        guard state.imports.count < core.limits.maxTableEntries else {
            throw ProtocolViolation(message: "import table is full (\(core.limits.maxTableEntries) entries)")
        }
        let hook = ImportHook(core: core, id: id, isPromise: false)
        state.imports[id] = SessionCore.ImportEntry(
            hook: hook, owner: ObjectIdentifier(hook), introductions: 1, pulled: false)
        return hook
    }

    /// The import for a promise the peer exported (`["promise", ID]`); already pulled.
    private func importPromise(_ id: Int64, state: inout SessionCore.State) throws(ProtocolViolation) -> ImportHook {
        guard state.imports[id] == nil else {
            throw ProtocolViolation(message: "promise ID \(id) is already in use")
        }
        guard state.imports.count < core.limits.maxTableEntries else {
            throw ProtocolViolation(message: "import table is full (\(core.limits.maxTableEntries) entries)")
        }
        let hook = ImportHook(core: core, id: id, isPromise: true)
        state.imports[id] = SessionCore.ImportEntry(
            hook: nil, owner: ObjectIdentifier(hook), introductions: 1, pulled: true, resolution: hook.resolution)
        return hook
    }
}
