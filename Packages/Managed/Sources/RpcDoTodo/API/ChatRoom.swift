import CapnWeb

/// A joined chat room: reading `messages` (or calling `messages()`) opens a stream of the
/// messages sent from then on; `send(text)` sends one and returns it.
final class ChatRoom: RpcTarget {
    private let store: TodoStore
    private let room: String

    init(store: TodoStore, room: String) {
        self.store = store
        self.room = room
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        if method == "messages" { return .readable(try store.subscribe("chat:\(room)")) }
        guard method == "send" else { throw RpcErrorValue.notAFunction("chat.\(method)") }
        let text = try ArgumentReader(arguments, method: "chat.send").text(0, maxLength: store.limits.maxTextLength)
        return try RpcPayload(encoding: store.postChatMessage(room: room, text: text))
    }

    func property(_ name: String) async throws -> RpcPayload {
        switch name {
        case "messages": .readable(try store.subscribe("chat:\(room)"))
        case "name": .string(room)
        default: .undefined
        }
    }
}
