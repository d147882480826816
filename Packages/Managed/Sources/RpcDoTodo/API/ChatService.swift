import CapnWeb

/// `api.chat`: `join(room)` returns a ``ChatRoom``.
final class ChatService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "join" else { throw RpcErrorValue.notAFunction("chat.\(method)") }
        let room = try ArgumentReader(arguments, method: "chat.join").text(0, maxLength: store.limits.maxTextLength)
        return .stub(RpcStub(ChatRoom(store: store, room: room)))
    }
}
