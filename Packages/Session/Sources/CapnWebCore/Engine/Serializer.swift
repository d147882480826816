internal import RpcWire

/// Why a value cannot be sent.
struct SerializationError: Error {
    let message: String
}

/// Turns payloads into expressions for sending, under the session's mutex: local stubs and
/// promises become new exports, references to the peer's own entries become `import` and
/// `pipeline` forms, local readable streams open pipes. Work that must not run under the mutex
/// (starting pumps, watching exported promises) is collected in ``effects``.
struct Serializer {
    let core: SessionCore
    /// What to perform, in order, once the mutex is released.
    var effects: [SessionEffect] = []

    init(core: SessionCore) {
        self.core = core
    }

    mutating func serialize(
        _ payload: RpcPayload, state: inout SessionCore.State, depth: Int = 0
    ) throws(SerializationError) -> CapnWebExpression {
        guard depth < core.limits.maxDepth else {
            throw SerializationError(message: "value is nested deeper than \(core.limits.maxDepth) levels")
        }
        switch payload {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .array(let elements):
            var result: [CapnWebExpression] = []
            result.reserveCapacity(elements.count)
            for element in elements {
                result.append(try serialize(element, state: &state, depth: depth + 1))
            }
            return .array(result)
        case .object(let members):
            return .object(try serializeMembers(members, state: &state, depth: depth))
        case .undefined: return .undefined
        case .bigint(let digits): return .bigint(digits)
        case .date(let milliseconds): return .date(milliseconds)
        case .bytes(let bytes, let type): return .bytes(bytes, type: type)
        case .error(let value):
            return .error(
                name: value.name, message: value.message, stack: value.stack,
                properties: try value.properties.map { properties throws(SerializationError) in
                    try serializeMembers(properties, state: &state, depth: depth)
                })
        case .url(let href): return .url(href)
        case .headers(let headers): return .headers(headers)
        case .request(let url, var requestInit, let body):
            requestInit.body = try body.map { body throws(SerializationError) in
                try serialize(body, state: &state, depth: depth + 1)
            }
            return .request(url: url, init: requestInit)
        case .response(let body, let responseInit):
            return .response(body: try serialize(body, state: &state, depth: depth + 1), init: responseInit)
        case .blob(let mimeType, let readable):
            return .blob(mimeType: mimeType, readable: pipe(readable, state: &state))
        case .readable(let readable):
            return .readable(pipe(readable, state: &state))
        case .writable(let writable):
            return exportHook(TargetHook(WritableTarget(writable.sink)), state: &state)
        case .stub(let stub):
            return stubExpression(stub, state: &state)
        }
    }

    private mutating func serializeMembers(
        _ members: [RpcPayload.Member], state: inout SessionCore.State, depth: Int
    ) throws(SerializationError) -> [CapnWebMember] {
        var result: [CapnWebMember] = []
        result.reserveCapacity(members.count)
        for member in members {
            result.append(CapnWebMember(member.key, try serialize(member.value, state: &state, depth: depth + 1)))
        }
        return result
    }

    /// A capture of a `remap`: the peer's own entry, or a new export of a local stub.
    mutating func capture(_ stub: RpcStub, state: inout SessionCore.State) throws(SerializationError) -> CapnWebCapture {
        if stub.path.isEmpty, let id = peerEntry(stub.hook, state: state) {
            return .import(id)
        }
        switch stubExpression(stub, state: &state) {
        case .export(let id), .promise(let id):
            return .export(id)
        case .import(let id, _, _), .pipeline(let id, _, _):
            return .import(id)
        default:
            throw SerializationError(message: "a map callback captured a value that is not a stub")
        }
    }

    /// The ID of `hook` when it is a live import of this session.
    private func peerEntry(_ hook: any StubHook, state: SessionCore.State) -> Int64? {
        if let main = hook as? SessionMainHook { return main.connection.currentCore() === core ? 0 : nil }
        guard let imported = hook as? ImportHook, imported.core === core,
            let entry = state.imports[imported.id],
            entry.permanent || entry.owner == ObjectIdentifier(imported)
        else { return nil }
        return imported.id
    }

    private mutating func stubExpression(_ stub: RpcStub, state: inout SessionCore.State) -> CapnWebExpression {
        if let id = peerEntry(stub.hook, state: state) {
            let path = stub.path.isEmpty ? nil : stub.path
            return stub.hook.isPromise ? .pipeline(id, path: path) : .import(id, path: path)
        }
        var hook = stub.hook
        if let main = hook as? SessionMainHook {
            hook = main.current()
        }
        if let imported = hook as? ImportHook, imported.core === core {
            hook = core.localTarget(of: imported)
        }
        if !stub.path.isEmpty {
            let placeholder = LocalPromiseHook()
            let base = hook
            let path = stub.path
            effects.append(.adopt(placeholder: placeholder, base: base, path: path))
            hook = placeholder
        }
        return exportHook(hook, state: &state)
    }

    private mutating func exportHook(_ hook: any StubHook, state: inout SessionCore.State) -> CapnWebExpression {
        let id = state.nextExportID
        state.nextExportID -= 1
        if hook.isPromise {
            state.exports[id] = SessionCore.ExportEntry(hook: hook, refcount: 1, pulled: true)
            state.unanswered.insert(id)
            effects.append(.answer(exportID: id, when: hook))
            return .promise(id)
        }
        state.exports[id] = SessionCore.ExportEntry(hook: hook, refcount: 1)
        if let target = hook as? TargetHook, target.target is WritableTarget {
            return .writable(id)
        }
        return .export(id)
    }

    private mutating func pipe(_ readable: RpcReadableStream, state: inout SessionCore.State) -> Int64 {
        let pipe = core.openPipe(state: &state)
        effects.append(.pump(readable, into: pipe))
        return pipe.id
    }
}
