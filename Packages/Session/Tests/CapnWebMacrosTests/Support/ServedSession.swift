import CapnWebMacros
import Foundation
import Testing
import CapnWebTesting

/// Frames a session sent and received, in order, as `>` (sent) or `<` (received) and the text.
final class FrameLog: Sendable {
    let frames = Recorder<String>()

    /// The sent frames, without releases.
    var sentCalls: [String] {
        frames.all.filter { $0.hasPrefix(">") && !$0.hasPrefix(">[\"release\"") }
    }

    /// The received frames, without releases.
    var answers: [String] {
        frames.all.filter { $0.hasPrefix("<") && !$0.hasPrefix("<[\"release\"") }
    }

    /// The frames sent before the first frame received.
    var sentBeforeFirstAnswer: [String] {
        Array(frames.all.prefix { $0.hasPrefix(">") })
    }
}

/// Serves `main` on 127.0.0.1, opens a session to it typed as `api`, runs `body`, then checks
/// that both sides' tables are back to `{imports: 1, exports: 1}`.
func withServedSession<API>(
    main: @escaping @Sendable () -> any RpcTarget,
    as api: API.Type,
    log: FrameLog? = nil,
    _ body: (RpcSession<API>) async throws -> Void
) async throws {
    try await withRpcServer(main: main) { server in
        try await withRpcSession(to: server.webSocketURL, as: api, configure: { configuration in
            if let log {
                configuration.trace = { sent, text in
                    log.frames.append((sent ? ">" : "<") + text)
                }
            }
        }) { session in
            try await body(session)
            let clean = RpcStats(imports: 1, exports: 1)
            #expect(await waitUntil { session.getStats() == clean }, "client tables")
            #expect(await waitUntil { server.sessions.allSatisfy { $0.getStats() == clean } }, "server tables")
        }
    }
}
