internal import CapnWeb

/// A recorded `map`: the transform, evaluated against a placeholder input when the chain runs.
struct MapStep: Sendable {
    let core: ClientCore
    let transform: @Sendable (RpcRef<Any>) async throws -> MapResult
}

/// What a map transform returned: a ref (relative to its input or to the root), or a value.
enum MapResult: Sendable {
    case ref(RefExpression)
    case payload(RpcPayload)
    case failed(RpcError)

    init(_ value: Any) {
        if let ref = value as? any RefExpressible {
            self = .ref(ref.refExpression)
        } else if let encodable = value as? any Encodable {
            do {
                self = .payload(try RpcPayload(encoding: encodable))
            } catch {
                self = .failed(.invalidArgument("a map result cannot be sent: \(error)"))
            }
        } else {
            self = .failed(.invalidArgument("a map must return an RpcRef or an Encodable value, not \(type(of: value))"))
        }
    }
}
