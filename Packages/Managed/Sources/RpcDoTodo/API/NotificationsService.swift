import CapnWeb

/// `api.notifications`: `subscribe()` streams new notifications as they are created (a new
/// todo creates one), `unread(limit)` and `recent(limit)` list them newest first,
/// `markAllRead()` returns `{updated}`, `send(title, body)` creates one.
final class NotificationsService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let reader = ArgumentReader(arguments, method: "notifications.\(method)")
        let maxList = store.limits.maxListLimit
        switch method {
        case "subscribe":
            return .readable(try store.subscribe("notifications"))
        case "unread":
            return try RpcPayload(encoding: store.notifications(unreadOnly: true, limit: try reader.limit(0, default: 20, maximum: maxList)))
        case "recent":
            return try RpcPayload(encoding: store.notifications(unreadOnly: false, limit: try reader.limit(0, default: 20, maximum: maxList)))
        case "markAllRead":
            return ["updated": .integer(Int64(store.markAllNotificationsRead()))]
        case "send":
            let maxText = store.limits.maxTextLength
            let title = try reader.text(0, maxLength: maxText)
            let body = try reader.optionalText(1, maxLength: maxText) ?? ""
            return try RpcPayload(encoding: store.addNotification(title: title, body: body))
        default:
            throw RpcErrorValue.notAFunction("notifications.\(method)")
        }
    }
}
