internal import CapnWeb
import Synchronization

/// What an ``RpcRef`` stands for, recorded without network traffic: a path of member reads,
/// index reads, calls and maps from the client's root (or a map's input).
indirect enum RefExpression: Sendable {
    case root
    case mapInput(UInt64)
    case member(RefExpression, String, subscripted: Bool)
    case index(RefExpression, Int)
    case call(RefExpression, [RefArgument])
    case map(RefExpression, MapStep)
    /// A map whose transform has run: its input placeholder and what it returned.
    case preparedMap(RefExpression, input: UInt64, MapResult)
    case failed(RpcError)

    /// The first recorded failure (an argument that could not be converted), if any.
    var failure: RpcError? {
        switch self {
        case .root, .mapInput: return nil
        case .failed(let error): return error
        case .member(let base, _, _), .index(let base, _), .map(let base, _): return base.failure
        case .preparedMap(let base, _, let result):
            if case .failed(let error) = result { return error }
            if case .ref(let inner) = result, let error = inner.failure { return error }
            return base.failure
        case .call(let base, let arguments):
            return base.failure ?? arguments.lazy.compactMap(\.failure).first
        }
    }

    /// `.users.get(id: "123").profile`, with the root written as `root`.
    func text(root: String = "") -> String {
        switch self {
        case .root: return root
        case .mapInput(let id): return "$\(id)"
        case .failed: return "<invalid>"
        case .member(let base, let name, let subscripted):
            let quoted = ValueConversion.text(.string(name))
            return base.text(root: root) + (subscripted ? "[\(quoted)]" : ".\(name)")
        case .index(let base, let index):
            return base.text(root: root) + "[\(index)]"
        case .call(let base, let arguments):
            let list = arguments.map { argument in
                let value = argument.text
                return argument.label.isEmpty ? value : "\(argument.label): \(value)"
            }
            return base.text(root: root) + "(" + list.joined(separator: ", ") + ")"
        case .map(let base, _), .preparedMap(let base, _, _):
            return base.text(root: root) + ".map { … }"
        }
    }
}

/// One argument of a recorded call.
struct RefArgument: Sendable {
    enum Value: Sendable {
        case payload(RpcPayload, text: String)
        case ref(RefExpression)
        case failed(RpcError)
    }

    let label: String
    let value: Value

    var failure: RpcError? {
        switch value {
        case .payload: nil
        case .ref(let expression): expression.failure
        case .failed(let error): error
        }
    }

    var text: String {
        switch value {
        case .payload(_, let text): text
        case .ref(let expression): expression.text(root: "api")
        case .failed: "<invalid>"
        }
    }

    init(label: String, prepared value: Value) {
        self.label = label
        self.value = value
    }

    /// Converts a Swift argument: a ref, an ``RpcValue`` or any `Encodable` value.
    init(label: String, value: any Sendable) {
        self.label = label
        if let ref = value as? any RefExpressible {
            self.value = .ref(ref.refExpression)
            return
        }
        guard let encodable = value as? any Encodable else {
            self.value = .failed(.invalidArgument("\(type(of: value)) is neither Encodable nor an RpcRef"))
            return
        }
        do {
            let payload = try RpcPayload(encoding: encodable)
            let text = ValueConversion.text((try? payload.decode(RpcValue.self)) ?? .from(value))
            self.value = .payload(payload, text: text)
        } catch {
            self.value = .failed(.invalidArgument("\(type(of: value)) cannot be sent: \(error)"))
        }
    }
}

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

/// Anything that stands for a recorded expression (every ``RpcRef``).
protocol RefExpressible {
    var refExpression: RefExpression { get }
}

/// Numbers for map placeholders.
enum MapInputCounter {
    private static let next = Atomic<UInt64>(0)

    static func take() -> UInt64 {
        next.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
