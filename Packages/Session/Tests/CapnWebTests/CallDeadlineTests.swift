import RpcTransportTesting
import Testing
@testable import CapnWebCLI

/// What one in-process `capnweb call` printed and returned.
private struct DeadlineRun: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `capnweb call URL square(5) --timeout 1` in-process, failing the test when it is not
/// done within a few seconds: the command must end by its deadline, where awaiting a close
/// handshake the server never answers takes the transport's close timeout (5 seconds) more.
private func callSquare(_ url: String) async throws -> DeadlineRun {
    try await withTimeLimit(.seconds(4), "capnweb call --timeout 1") {
        let (output, buffer) = CommandOutput.capture()
        let options = CallOptions(
            url: url, statements: ["square(5)"], batch: false, trace: false, timeout: .seconds(1),
            caCertificates: [], headers: [:])
        let status = await CallRunner.run(options, output: output)
        return DeadlineRun(status: status, standardOutput: buffer.standardOutput, standardError: buffer.standardError)
    }
}

/// `capnweb call` against servers that misbehave: the command ends within its `--timeout`,
/// close included, and reports what it received.
@Suite("capnweb call deadlines")
struct CallDeadlineTests {
    @Test("a server that never answers times out with status 124 and its connection is cut at the deadline")
    func silentServer() async throws {
        try await HostileWebSocketServer.run(answer: { _ in [] }) { server in
            let run = try await callSquare(server.url)
            #expect(run.status == CallExitCode.timedOut)
            #expect(run.standardOutput == "")
            #expect(run.standardError == "error: timed out: no answer within 1 second\n")
            // The client ended the connection itself: it did not wait for a close answer.
            #expect(await waitUntil { server.observations.ended == 1 })
        }
    }

    @Test("a server that never answers the WebSocket upgrade times out with status 124")
    func silentUpgrade() async throws {
        try await SilentTCPServer.run { port in
            let run = try await callSquare("ws://127.0.0.1:\(port)/ws")
            #expect(run.status == CallExitCode.timedOut)
            #expect(run.standardOutput == "")
            #expect(run.standardError == "error: timed out: no answer within 1 second\n")
        }
    }

    @Test("an answer is printed with status 0 even when the server ignores the close frame")
    func answerThenIgnoreClose() async throws {
        try await HostileWebSocketServer.run(answer: { frame in
            frame == #"["pull",1]"# ? [#"["resolve",1,25]"#] : []
        }) { server in
            let run = try await callSquare(server.url)
            #expect(run.status == CallExitCode.success)
            #expect(run.standardOutput == "25\n")
            #expect(run.standardError == "")
            // The close was tried with a close frame, and cut when no answer came by the deadline.
            #expect(server.observations.closeFrames >= 1)
            #expect(await waitUntil { server.observations.ended == 1 })
        }
    }

    @Test("against a server that ignores the close, the close wait is the one bound: neither shorter nor the transport's 5 s")
    func closeWaitIsTheBound() async throws {
        try await HostileWebSocketServer.run(answer: { frame in
            frame == #"["pull",1]"# ? [#"["resolve",1,25]"#] : []
        }) { server in
            // Waits for the outcome, then the close: the limit only turns a hang into a failure.
            let (run, elapsed) = try await withTimeLimit(.seconds(4), "capnweb call --close-wait 0.5") {
                let (output, buffer) = CommandOutput.capture()
                let options = CallOptions(
                    url: server.url, statements: ["square(5)"], timeout: .seconds(20), closeWait: .milliseconds(500))
                let clock = ContinuousClock()
                let start = clock.now
                let status = await CallRunner.run(options, output: output)
                let run = DeadlineRun(status: status, standardOutput: buffer.standardOutput, standardError: buffer.standardError)
                return (run, clock.now - start)
            }
            #expect(run.status == CallExitCode.success)
            #expect(run.standardOutput == "25\n")
            #expect(server.observations.closeFrames >= 1)
            // The close frame went out and its answer was awaited for the whole close wait.
            #expect(elapsed >= .milliseconds(500))
            #expect(await waitUntil { server.observations.ended == 1 })
        }
    }

    @Test("garbage from the server fails the call with status 3 before the deadline")
    func garbage() async throws {
        try await HostileWebSocketServer.run(answer: { _ in ["this is not JSON {"] }) { server in
            let run = try await callSquare(server.url)
            #expect(run.status == CallExitCode.failed)
            #expect(run.standardOutput == "")
            #expect(run.standardError.hasPrefix("error: "))
            #expect(run.standardError.contains("bad RPC message"))
            #expect(await waitUntil { server.observations.ended == 1 })
        }
    }

    @Test("an abort from the server fails the pending call at once with status 3 and its message")
    func abortWhilePending() async throws {
        try await HostileWebSocketServer.run(answer: { frame in
            frame.hasPrefix(#"["pull","#) ? [#"["abort",["error","Error","the server gave up"]]"#] : []
        }) { server in
            let run = try await callSquare(server.url)
            #expect(run.status == CallExitCode.failed)
            #expect(run.standardOutput == "")
            #expect(run.standardError.hasPrefix("error: "))
            #expect(run.standardError.contains("the server gave up"))
            #expect(!run.standardError.contains("timed out"))
            #expect(await waitUntil { server.observations.ended == 1 })
        }
    }
}
