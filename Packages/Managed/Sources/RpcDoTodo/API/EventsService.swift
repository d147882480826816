import CapnWeb

/// `api.events`: `subscribe(topic)` streams `{id, topic, type, payload, priority}` events of
/// one topic (`todos`, `users`, any name; `all` for every topic); `publish(topic, type,
/// payload, priority?)` sends one. Changes to todos and users publish events by themselves.
final class EventsService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let reader = ArgumentReader(arguments, method: "events.\(method)")
        let maxText = store.limits.maxTextLength
        switch method {
        case "subscribe":
            return .readable(try store.subscribe("events:\(try reader.text(0, maxLength: maxText))"))
        case "publish":
            let topic = try reader.text(0, maxLength: maxText)
            let type = try reader.text(1, maxLength: maxText)
            let payload = try reader.optionalText(2, maxLength: maxText) ?? ""
            let priority = try reader.optionalText(3, maxLength: maxText) ?? "normal"
            guard ["low", "normal", "high"].contains(priority) else {
                throw TodoErrors.type("events.publish: priority must be low, normal or high")
            }
            return try RpcPayload(encoding: store.publishEvent(topic: topic, type: type, payload: payload, priority: priority))
        default:
            throw RpcErrorValue.notAFunction("events.\(method)")
        }
    }
}
