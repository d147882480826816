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
