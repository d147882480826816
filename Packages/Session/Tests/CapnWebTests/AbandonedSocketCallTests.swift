import Foundation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
@testable import CapnWebCore
import CapnWeb
import CapnWebDemo

@Suite("Abandoned calls over WebSocket")
struct AbandonedSocketCallTests {
    @Test("cancelling the task awaiting a call over a WebSocket cancels the server's running target")
    func cancelledAwaitCancelsTheTarget() async throws {
        let api = TestAPI()
        try await withSocketPeers(main: { _ in api }) { peers in
            let session = try await peers.connect()
            do {
                let waiting = Task {
                    let _: String = try await session.api.hang()
                }
                try await waitUntil("the server to run the call") { api.hangsRunning == 1 }
                waiting.cancel()
                let outcome = await waiting.result
                guard case .failure(let error) = outcome, case .cancelled? = error as? RpcError else {
                    Issue.record("expected cancelled, got \(outcome)")
                    return
                }
                try await waitUntil("the server's target to end") { api.hangsRunning == 0 }
                #expect(api.hangsStarted == 1)
                await peers.expectSettled(session)
            }
        }
    }

    @Test("calls still running when a WebSocket peer goes away are cancelled and their sessions freed")
    func runningCallsEndWithTheConnection() async throws {
        let api = TestAPI()
        try await withSocketPeers(main: { _ in api }) { peers in
            let server = peers.server
            for round in 1...3 {
                let transport = try await WebSocketClient.connect(to: server.webSocketURL.absoluteString)
                transport.start { _ in }
                let calls = 500
                for id in 1...calls {
                    try transport.enqueue(.text(#"["push",["pipeline",0,["hang"],[]]]"#))
                    try transport.enqueue(.text(#"["pull",\#(id)]"#))
                }
                try await waitUntil("every call of round \(round) to start") { api.hangsStarted == calls * round }
                await transport.close()
                try await waitUntil("every call of round \(round) to end") { api.hangsRunning == 0 }
                try await waitUntil("the server to forget the session") { server.sessions.isEmpty }
            }
        }
    }
}
