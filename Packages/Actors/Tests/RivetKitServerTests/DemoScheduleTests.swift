import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

@Suite("Demo counter: scheduleIncrement")
struct DemoScheduleTests {
    @Test("The demo counter's scheduleIncrement(by, delayMs) answers a schedule id, and newCount shows increment(by) ran later")
    func demoScheduleIncrement() async throws {
        try await InProcessServer.with { server in
            let socket = try await server.connectRaw(
                "/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=scheduled")
            _ = try await socket.initialized()
            try await socket.send(.subscriptionRequest(eventName: "newCount", subscribe: true))
            let scheduled = try await socket.call(1, "scheduleIncrement", [5, 20])
            #expect(scheduled.stringValue?.isEmpty == false)
            #expect(try await socket.nextMessage() == .event(name: "newCount", args: [5]))
            #expect(try await socket.call(2, "getCount") == 5)
        }
    }
}
