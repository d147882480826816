internal import RpcWire

/// A settled value. Property reads walk into it; when the walk meets a stub the rest of the
/// path (and any call) is forwarded to that stub.
final class PayloadHook: StubHook {
    let value: RpcPayload

    init(_ value: RpcPayload) {
        self.value = value
    }

    var isPromise: Bool { true }

    var heldResult: HeldResult? { .settled(.success(value)) }

    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) {
        body(.success(value))
    }

    func whenSettled(resuming waiter: SettlementWaiter) {
        waiter.resume(.success(value))
    }

    func whenSettled(answering id: Int64, of core: SessionCore) {
        core.answer(id, .success(value))
    }

    func get(_ path: [CapnWebPathKey]) -> any StubHook {
        switch PathWalk.walk(value, path) {
        case .value(let found):
            return found.flatMap { PayloadHook($0) } ?? PayloadHook(.undefined)
        case .stub(let stub, let rest):
            return stub.hook.get(stub.path + rest)
        case .failure(let error):
            return ErrorHook(.thrown(.error(error)))
        }
    }

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        switch PathWalk.walk(value, path) {
        case .stub(let stub, let rest):
            return stub.hook.call(stub.path + rest, arguments)
        case .value:
            return ErrorHook(.thrown(.error(.notAFunction(PathWalk.describe(path)))))
        case .failure(let error):
            return ErrorHook(.thrown(.error(error)))
        }
    }

    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook {
        switch PathWalk.walk(value, path) {
        case .stub(let stub, let rest):
            return stub.hook.map(stub.path + rest, recording)
        case .value(let found):
            return MapApplication.apply(recording, to: found ?? .undefined)
        case .failure(let error):
            return ErrorHook(.thrown(.error(error)))
        }
    }
}

/// Walks a property path through a plain value with the reference implementation's rules:
/// own members of objects, non-negative integer indexes of arrays, nothing of other values,
/// and never a name that JavaScript objects inherit. A step that finds nothing gives
/// `undefined`, and a step taken *from* `undefined` fails with the `TypeError` JavaScript
/// throws there (`Cannot read properties of undefined (reading 'x')`), as the reference's does;
/// a name every object inherits still gives `undefined`, even from `undefined`.
enum PathWalk {
    enum Outcome {
        /// The walk ended in plain data (`nil` when the last step found nothing).
        case value(RpcPayload?)
        /// The walk met a stub; `rest` is the remaining path.
        case stub(RpcStub, rest: [CapnWebPathKey])
        /// A step read a property of `undefined`.
        case failure(RpcErrorValue)
    }

    static func walk(_ start: RpcPayload, _ path: [CapnWebPathKey]) -> Outcome {
        var current: RpcPayload? = start
        for (offset, key) in path.enumerated() {
            if case .stub(let stub)? = current {
                return .stub(stub, rest: Array(path[offset...]))
            }
            if case .property(let name) = key, isObjectPrototypeName(name) {
                current = nil
                continue
            }
            guard let value = current else { return .failure(readingUndefined(key)) }
            if case .undefined = value { return .failure(readingUndefined(key)) }
            current = step(value, key)
        }
        if case .stub(let stub)? = current { return .stub(stub, rest: []) }
        return .value(current)
    }

    /// The error of reading `key` of `undefined`, worded as V8 words it.
    static func readingUndefined(_ key: CapnWebPathKey) -> RpcErrorValue {
        let name: String
        switch key {
        case .property(let property): name = property
        case .index(let index): name = String(index)
        }
        return RpcErrorValue(name: "TypeError", message: "Cannot read properties of undefined (reading '\(name)')")
    }

    /// Whether `name` is a member of JavaScript's `Object.prototype`, which the reference reads
    /// as `undefined` from any value, `undefined` included (``isInheritedName(_:)`` without
    /// `toJSON`).
    static func isObjectPrototypeName(_ name: String) -> Bool {
        name != "toJSON" && isInheritedName(name)
    }

    static func step(_ value: RpcPayload, _ key: CapnWebPathKey) -> RpcPayload? {
        switch (value, key) {
        case (.object(let members), .property(let name)):
            guard !isInheritedName(name) else { return nil }
            return members.last { $0.key == name }?.value
        case (.array(let elements), .index(let index)):
            guard index >= 0, index < elements.count else { return nil }
            return elements[Int(index)]
        default:
            return nil
        }
    }

    /// Names every JavaScript object inherits; never reachable over RPC.
    ///
    /// A `switch` rather than a `Set`: it compares the (mostly small) strings directly instead of
    /// hashing the name on every call.
    static func isInheritedName(_ name: String) -> Bool {
        // Every inherited name starts with one of these bytes, so most method names are ruled
        // out without comparing strings.
        switch name.utf8.first {
        case UInt8(ascii: "_"), UInt8(ascii: "c"), UInt8(ascii: "h"), UInt8(ascii: "i"),
            UInt8(ascii: "p"), UInt8(ascii: "t"), UInt8(ascii: "v"):
            break
        default:
            return false
        }
        switch name {
        case "__proto__", "constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty",
            "isPrototypeOf", "propertyIsEnumerable", "__defineGetter__", "__defineSetter__",
            "__lookupGetter__", "__lookupSetter__", "toJSON":
            return true
        default:
            return false
        }
    }

    /// The path joined with dots, as error messages show it.
    static func describe(_ path: [CapnWebPathKey]) -> String {
        path.map { key in
            switch key {
            case .property(let name): name
            case .index(let index): String(index)
            }
        }.joined(separator: ".")
    }
}
