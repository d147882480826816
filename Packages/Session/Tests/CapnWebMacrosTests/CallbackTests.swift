import CapnWebMacros
import CapnWebTesting
import Synchronization
import Testing
import CapnWebSocketTestSupport

/// What the server calls back: the seed's `NotificationHandler` shape.
@RpcProtocol
protocol NotificationSink {
    func onMessage(_ text: String) async throws -> Int
}

/// The server's API: takes a sink by reference and calls it.
@RpcProtocol
protocol NotifierAPI {
    func subscribe(callback: NotificationSink) async throws -> Int
}

/// The server: an `@Rpc` method whose parameter is an `@RpcProtocol` type.
@Rpc final class Notifier {
    func subscribe(callback: NotificationSink) async throws -> Int {
        let first = try await callback.onMessage("hello")
        let second = try await callback.onMessage("world")
        return first + second
    }
}

/// The client's local object, exposed with `@Rpc` and passed as `handler.stub`.
@Rpc actor NotificationHandler: NotificationSink {
    private var received: [String] = []

    func onMessage(_ text: String) -> Int {
        received.append(text)
        return received.count
    }

    /// What arrived, read locally.
    func messages() -> [String] {
        received
    }
}

@Suite("@Rpc callbacks")
struct CallbackTests {
    @Test("an @Rpc actor passed as handler.stub is called back by the server through a parameter of an @RpcProtocol type")
    func handlerStubIsCalledBack() async throws {
        let handler = NotificationHandler()
        try await withSocketSession(as: NotifierAPIStub.self, main: { _ in Notifier() }) { session, _ in
            let total = try await session.api.subscribe(callback: NotificationSinkStub(handler.stub))
            #expect(total == 3)
        }
        #expect(await handler.messages() == ["hello", "world"])
    }

    @Test("an @Rpc object conforming to the protocol passes as the protocol's argument itself")
    func localObjectAsProtocolArgument() async throws {
        let handler = NotificationHandler()
        try await withSocketSession(as: NotifierAPIStub.self, main: { _ in Notifier() }) { session, _ in
            let total = try await session.api.subscribe(callback: handler)
            #expect(total == 3)
        }
        #expect(await handler.messages() == ["hello", "world"])
    }

    @Test("the seed's untyped spelling works too: session.api.subscribe(callback: handler.stub)")
    func untypedSubscribe() async throws {
        let handler = NotificationHandler()
        try await withSocketSession(as: Any.self, main: { _ in Notifier() }) { session, _ in
            let total: Int = try await session.api.subscribe(callback: handler.stub)
            #expect(total == 3)
        }
        #expect(await handler.messages() == ["hello", "world"])
    }
}
