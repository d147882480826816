internal import RpcWire

/// Runs a recorded `map` on a settled value: once per element of an array, not at all on
/// `null` or `undefined`, once on anything else. A recording without instructions makes the
/// map reject with `Error: Invalid empty mapper function.` whenever it would run, as the
/// reference's does; the session goes on.
///
/// Each instruction's result becomes a variable; references to variables stay promises inside
/// the result (so a peer sees them as `promise` exports, as the reference implementation
/// sends them), and are substituted before the result reaches application code.
enum MapApplication {
    static func apply(_ recording: MapRecording, to value: RpcPayload) -> any StubHook {
        do {
            switch value {
            case .null, .undefined:
                return PayloadHook(value)
            case .array(let elements):
                var results: [RpcPayload] = []
                results.reserveCapacity(elements.count)
                for element in elements {
                    results.append(try runOnce(recording, input: element))
                }
                return PayloadHook(.array(results))
            default:
                return PayloadHook(try runOnce(recording, input: value))
            }
        } catch {
            return ErrorHook(.thrown(.error(error)))
        }
    }

    private static func runOnce(_ recording: MapRecording, input: RpcPayload) throws(RpcErrorValue) -> RpcPayload {
        // As the reference: a mapper without instructions has no result; the map rejects, but
        // only when it runs (an empty array, null or undefined map to themselves).
        guard !recording.instructions.isEmpty else {
            throw RpcErrorValue(name: "Error", message: "Invalid empty mapper function.")
        }
        var variables: [RpcStub] = [stub(for: input)]
        var last: RpcPayload = .undefined
        for instruction in recording.instructions {
            last = try evaluate(instruction, variables: variables, captures: recording.captures)
            variables.append(stub(for: last))
        }
        return last
    }

    private static func stub(for value: RpcPayload) -> RpcStub {
        if case .stub(let stub) = value { return stub }
        return RpcStub(hook: PayloadHook(value))
    }

    private static func variable(_ id: Int64, _ variables: [RpcStub], _ captures: [RpcStub]) throws(RpcErrorValue) -> RpcStub {
        // `magnitude` rather than `-id`, which traps for `Int64.min`.
        if id >= 0, id < variables.count { return variables[Int(id)] }
        if id < 0, id.magnitude <= UInt64(captures.count) { return captures[Int(id.magnitude) - 1] }
        throw RpcErrorValue(name: "TypeError", message: "map instruction refers to unknown variable \(id)")
    }

    private static func evaluate(
        _ expression: CapnWebExpression, variables: [RpcStub], captures: [RpcStub]
    ) throws(RpcErrorValue) -> RpcPayload {
        func all(_ expressions: [CapnWebExpression]) throws(RpcErrorValue) -> [RpcPayload] {
            var values: [RpcPayload] = []
            for expression in expressions {
                values.append(try evaluate(expression, variables: variables, captures: captures))
            }
            return values
        }
        switch expression {
        case .pipeline(let id, let path, let arguments), .import(let id, let path, let arguments):
            let base = try variable(id, variables, captures)
            let awaits: Bool
            if case .pipeline = expression { awaits = true } else { awaits = false }
            if let arguments {
                let hook = base.hook.call(base.path + (path ?? []), try all(arguments))
                return .stub(RpcStub(hook: hook, awaitsDelivery: awaits))
            }
            return .stub(RpcStub(hook: base.hook, path: base.path + (path ?? []), awaitsDelivery: true))
        case .remap(let id, let path, let nestedCaptures, let instructions):
            let base = try variable(id, variables, captures)
            var resolved: [RpcStub] = []
            for capture in nestedCaptures {
                guard case .import(let captured) = capture else {
                    throw RpcErrorValue(name: "TypeError", message: "a map callback cannot export new stubs")
                }
                resolved.append(try variable(captured, variables, captures))
            }
            let hook = base.hook.map(
                base.path + path, MapRecording(captures: resolved, instructions: instructions))
            return .stub(RpcStub(hook: hook, awaitsDelivery: true))
        case .array(let elements):
            return .array(try all(elements))
        case .object(let members):
            var result: [RpcPayload.Member] = []
            for member in members where !PathWalk.isInheritedName(member.key) {
                result.append(RpcPayload.Member(member.key, try evaluate(member.value, variables: variables, captures: captures)))
            }
            return .object(result)
        case .export, .promise, .readable, .writable, .blob:
            throw RpcErrorValue(name: "TypeError", message: "a map callback cannot create stubs or streams")
        default:
            return PlainValue.payload(expression) ?? .undefined
        }
    }
}

/// Plain (reference-free) expressions as payloads.
enum PlainValue {
    static func payload(_ expression: CapnWebExpression) -> RpcPayload? {
        switch expression {
        case .null: .null
        case .bool(let value): .bool(value)
        case .integer(let value): .integer(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .undefined: .undefined
        case .infinity: .double(.infinity)
        case .negativeInfinity: .double(-.infinity)
        case .nan: .double(.nan)
        case .bigint(let digits): .bigint(digits)
        case .date(let milliseconds): .date(milliseconds)
        case .bytes(let bytes, let type): .bytes(bytes, type: type)
        case .error(let name, let message, let stack, _): .error(RpcErrorValue(name: name, message: message, stack: stack))
        case .url(let href): .url(href)
        case .headers(let headers): .headers(headers)
        default: nil
        }
    }
}
