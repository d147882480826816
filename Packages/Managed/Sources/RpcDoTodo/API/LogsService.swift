import CapnWeb

/// `api.logs`: `stream(level)` streams the server's kept log entries at `level` or above
/// (`debug`, `info`, `warning`, `error`), then new ones as they are written.
final class LogsService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "stream" else { throw RpcErrorValue.notAFunction("logs.\(method)") }
        let value = arguments.value(at: 0)
        let level: String
        switch value {
        case .null, .undefined: level = "debug"
        case .string(let text): level = text.lowercased()
        default: throw TodoErrors.type("logs.stream: the level must be a string")
        }
        guard LogRecord.rank(level) != nil else {
            throw TodoErrors.type("logs.stream: the level must be one of \(LogRecord.levels.joined(separator: ", "))")
        }
        let kept = try store.logs(atLeast: level).map { try RpcPayload(encoding: $0) }
        return .readable(try store.subscribe("logs:\(level)", initial: kept))
    }
}
