internal import CapnWeb
internal import RpcWire

/// Turns `capnweb call` expressions into pipelined calls on the server's main object.
///
/// Evaluation never awaits: every call is sent as it is built (``Ref/sendNow()``), pipelined on
/// the references it uses, so a whole list of statements costs one round trip when only the
/// last one is awaited, and every call of every statement reaches the server in the order the
/// statements give, whether or not its value is printed or used later (a ref that is only built
/// would never leave, and in an HTTP batch it would leave only after the awaited last call).
///
/// Names resolve, innermost first, to the parameter of an enclosing `.map(x => ...)`, a name
/// bound by an earlier `name = expression`, the main object itself (`main`, `api`), or else a
/// member of the main object (`square` is `main.square`). Member reads and index reads on a
/// literal object or array are done here; on a reference they extend its path. `.map` records
/// its body once, synchronously, with the parameter bound to the map's input.
struct CallEvaluator: Sendable {
    /// The server's main object.
    let main: Ref<Any>
    /// The names bound so far (statements' bindings, and map parameters while a body records).
    private(set) var bindings: [String: CallValue] = [:]

    /// Creates an evaluator for the main object `main`.
    init(main: Ref<Any>) {
        self.main = main
    }

    /// Evaluates a statement and binds its name, if any; returns its value.
    mutating func run(_ statement: CallStatement) throws(CallEvaluationError) -> CallValue {
        let value = try evaluate(statement.expression)
        if let binding = statement.binding {
            bindings[binding] = value
        }
        return value
    }

    /// Evaluates an expression: sends the calls it makes and returns its value without awaiting.
    func evaluate(_ expression: CallExpression) throws(CallEvaluationError) -> CallValue {
        switch expression {
        case .literal(let payload):
            return .payload(payload)
        case .array(let elements):
            var values: [RpcPayload] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                values.append(try evaluate(element).payload)
            }
            return .payload(.array(values))
        case .object(let members):
            var values: [RpcPayload.Member] = []
            values.reserveCapacity(members.count)
            for (key, member) in members {
                values.append(RpcPayload.Member(key, try evaluate(member).payload))
            }
            return .payload(.object(values))
        case .name(let name):
            return resolve(name)
        case .member(let base, let name):
            return try read(.property(name), of: evaluate(base), in: base)
        case .index(let base, let key):
            return try read(key, of: evaluate(base), in: base)
        case .call(let callee, let arguments):
            guard case .ref(let function) = try evaluate(callee) else {
                throw CallEvaluationError("'\(callee)' is a value here, not a function that can be called")
            }
            var payloads: [RpcPayload] = []
            payloads.reserveCapacity(arguments.count)
            for argument in arguments {
                payloads.append(try evaluate(argument).payload)
            }
            // Sent now, in evaluation order: its arguments' calls went out before it. Inside a
            // `.map` body this records the call instead, and sending does nothing.
            return .ref(function.call(payloads).sendNow())
        case .map(let base, let parameter, let body):
            guard case .ref(let source) = try evaluate(base) else {
                throw CallEvaluationError("'.map' applies to a remote value, and '\(base)' is a value here")
            }
            return .ref(try map(source, parameter: parameter, body: body))
        }
    }

    /// The value of `name`; see the type's documentation for the order.
    private func resolve(_ name: String) -> CallValue {
        if let bound = bindings[name] {
            return bound
        }
        if CallExpressionParser.mainObjectNames.contains(name) {
            return .ref(main)
        }
        return .ref(main[name])
    }

    /// Reads `key` of `value`: extends a reference's path, or looks into a literal.
    private func read(
        _ key: CapnWebPathKey, of value: CallValue, in base: CallExpression
    ) throws(CallEvaluationError) -> CallValue {
        switch (value, key) {
        case (.ref(let ref), .property(let name)):
            return .ref(ref[name])
        case (.ref(let ref), .index(let index)):
            guard let index = Int(exactly: index) else {
                throw CallEvaluationError("the index \(index) is too large")
            }
            return .ref(ref[index])
        case (.payload(let payload), .property(let name)):
            guard case .object = payload else { break }
            return CallValue(payload[name] ?? .undefined)
        case (.payload(let payload), .index(let index)):
            guard case .array = payload else { break }
            return CallValue(Int(exactly: index).flatMap { payload[$0] } ?? .undefined)
        }
        throw CallEvaluationError("cannot read \(Self.keyText(key)) of '\(base)', a value here")
    }

    /// Records `body` as the map function applied to `source` on the server.
    private func map(
        _ source: Ref<Any>, parameter: String, body: CallExpression
    ) throws(CallEvaluationError) -> Ref<Any> {
        var failure: CallEvaluationError?
        let mapped = source.remap { input in
            var inner = self
            inner.bindings[parameter] = .ref(input)
            do throws(CallEvaluationError) {
                return try inner.evaluate(body).payload
            } catch {
                failure = error
                return .undefined
            }
        }
        if let failure {
            throw failure
        }
        return Ref<Any>(RpcStub(mapped)).sendNow()
    }

    /// `'name'` or `[0]`, for messages.
    private static func keyText(_ key: CapnWebPathKey) -> String {
        switch key {
        case .property(let name): "'\(name)'"
        case .index(let index): "[\(index)]"
        }
    }
}
