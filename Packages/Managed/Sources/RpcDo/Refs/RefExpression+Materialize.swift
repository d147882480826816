internal import CapnWeb

extension RefExpression {
    /// How many calls the chain makes (maps count as one more).
    var callCount: Int {
        switch self {
        case .root, .mapInput, .failed: 0
        case .member(let base, _, _), .index(let base, _): base.callCount
        case .call(let base, let arguments):
            base.callCount + 1 + arguments.reduce(0) { total, argument in
                if case .ref(let expression) = argument.value { return total + expression.callCount }
                return total
            }
        case .map(let base, _), .preparedMap(let base, _, _): base.callCount + 1
        }
    }

    /// The same expression with every map transform run against its placeholder.
    func prepared() async throws(RpcError) -> RefExpression {
        switch self {
        case .root, .mapInput, .failed, .preparedMap:
            return self
        case .member(let base, let name, let subscripted):
            return .member(try await base.prepared(), name, subscripted: subscripted)
        case .index(let base, let index):
            return .index(try await base.prepared(), index)
        case .call(let base, let arguments):
            var prepared: [RefArgument] = []
            for argument in arguments {
                if case .ref(let expression) = argument.value {
                    prepared.append(RefArgument(label: argument.label, prepared: .ref(try await expression.prepared())))
                } else {
                    prepared.append(argument)
                }
            }
            return .call(try await base.prepared(), prepared)
        case .map(let base, let step):
            let input = MapInputCounter.take()
            var result: MapResult
            do {
                result = try await step.transform(RpcRef<Any>(core: step.core, expression: .mapInput(input)))
            } catch let error as RpcError {
                throw error
            } catch {
                throw .invalidArgument("the map transform threw: \(error)")
            }
            if case .ref(let expression) = result {
                result = .ref(try await expression.prepared())
            }
            return .preparedMap(try await base.prepared(), input: input, result)
        }
    }

    /// The chain as a Cap'n Web ref on `root`: calls are sent as they are made (pipelined).
    /// Expects a prepared expression without failures.
    func materialize(root: Ref<Any>, inputs: [UInt64: Ref<Any>] = [:]) -> Ref<Any> {
        switch self {
        case .root, .failed, .map:
            return root
        case .mapInput(let id):
            return inputs[id] ?? root
        case .member(let base, let name, _):
            let ref: Ref<Any> = base.materialize(root: root, inputs: inputs)[name]
            return ref
        case .index(let base, let index):
            let ref: Ref<Any> = base.materialize(root: root, inputs: inputs)[index]
            return ref
        case .call(let base, let arguments):
            let target = base.materialize(root: root, inputs: inputs)
            let payloads = arguments.map { argument -> RpcPayload in
                switch argument.value {
                case .payload(let payload, _): payload
                case .ref(let expression): .stub(RpcStub(expression.materialize(root: root, inputs: inputs)))
                case .failed: .undefined
                }
            }
            return target.call(payloads)
        case .preparedMap(let base, let input, let result):
            let source = base.materialize(root: root, inputs: inputs)
            let mapped = source.remap { element in
                var inner = inputs
                inner[input] = element
                switch result {
                case .ref(let expression): return .stub(RpcStub(expression.materialize(root: root, inputs: inner)))
                case .payload(let payload): return payload
                case .failed: return .undefined
                }
            }
            return Ref<Any>(RpcStub(mapped))
        }
    }
}
