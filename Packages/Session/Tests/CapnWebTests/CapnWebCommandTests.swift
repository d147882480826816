import ArgumentParser
import Foundation
import RpcTesting
import RpcTransportTesting
import Testing
import CapnWebSocketTestSupport
@testable import CapnWebCLI
import CapnWeb
import CapnWebDemo

/// What one in-process `capnweb call` printed and returned.
private struct CallRun: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `capnweb call` in-process.
private func call(
    _ url: String, _ statements: [String], batch: Bool = false, trace: Bool = false,
    timeout: Duration = .seconds(20), caCertificates: [String] = [], headers: [String: String] = [:]
) async -> CallRun {
    let (output, buffer) = CommandOutput.capture()
    let options = CallOptions(
        url: url, statements: statements, batch: batch, trace: trace, timeout: timeout,
        caCertificates: caCertificates, headers: headers)
    let status = await CallRunner.run(options, output: output)
    return CallRun(status: status, standardOutput: buffer.standardOutput, standardError: buffer.standardError)
}

/// Runs `capnweb serve --demo --port 0` in-process while `body` runs with its WebSocket and
/// batch URLs, then stops it and checks that it printed `READY` and exited with 0.
private func withDemoServer(
    _ serveOptions: ServeOptions = ServeOptions(host: "127.0.0.1", port: 0),
    _ body: (_ webSocketURL: String, _ batchURL: String) async throws -> Void
) async throws {
    let (ready, readyContinuation) = AsyncStream<[String]>.makeStream()
    let (stop, stopContinuation) = AsyncStream<Void>.makeStream()
    let (output, buffer) = CommandOutput.capture()
    async let status = DemoServer.run(
        serveOptions, output: output,
        onReady: { webSocketURL, batchURL in
            readyContinuation.yield([webSocketURL, batchURL])
            readyContinuation.finish()
        },
        until: {
            for await _ in stop {}
        })
    var urls: [String] = []
    for await announced in ready { urls = announced }
    defer { stopContinuation.finish() }
    guard urls.count == 2 else {
        readyContinuation.finish()
        stopContinuation.finish()
        Issue.record("the server did not start: \(buffer.standardError)")
        _ = await status
        return
    }
    do {
        try await body(urls[0], urls[1])
    } catch {
        stopContinuation.finish()
        _ = await status
        throw error
    }
    stopContinuation.finish()
    #expect(await status == 0)
    #expect(buffer.standardOutput == "READY \(urls[0])\n")
}

@Suite("capnweb command")
struct CapnWebCommandTests {
    @Test("serve prints READY with the real port and a ws URL")
    func serveReady() async throws {
        try await withDemoServer { webSocketURL, batchURL in
            #expect(webSocketURL.hasPrefix("ws://127.0.0.1:"))
            #expect(webSocketURL.hasSuffix("/ws"))
            #expect(!webSocketURL.contains(":0/"))
            #expect(batchURL.hasPrefix("http://127.0.0.1:"))
        }
    }

    @Test("call square(5) prints 25")
    func square() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["square(5)"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "25\n")
            #expect(run.standardError == "")
        }
    }

    @Test("a bound name pipelines into a later member path")
    func pipelinedChain() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["u = getUser(7)", "u.profile.displayName"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "\"User 7\"\n")
        }
    }

    @Test("a call can be the argument of another call")
    func nestedCall() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["square(add(2,3))"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "25\n")
        }
    }

    @Test("map runs its body on the server for each element")
    func map() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["generateFibonacci(6).map(x => square(x))"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "[0,1,1,4,9,25]\n")
        }
    }

    @Test("special values come back as JavaScript literals")
    func specialValues() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["echo([undefined, NaN, 12n, new Date(5)])"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "[undefined,NaN,12n,new Date(5)]\n")
        }
    }

    @Test("a stream result prints as the array of its chunks")
    func stream() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["makeStream(3)"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "[0,1,2]\n")
        }
    }

    @Test("every statement is sent in order, also one whose value is neither printed nor used later")
    func unusedStatementIsSent() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["c = makeCounter(10)", "c.increment(5)", "incrementCounter(c, 2)"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "17\n")
            #expect(run.standardError == "")
        }
    }

    @Test("calls in an unused literal and in an unbound statement reach the server before the last statement's")
    func unusedCallsInLiteralsAreSent() async throws {
        try await withDemoServer { url, _ in
            let run = await call(
                url, ["c = makeCounter(0)", "[c.increment(1), {a: c.increment(2)}]", "c.increment(3)", "c.increment(0)"],
                trace: true)
            #expect(run.status == 0)
            #expect(run.standardOutput == "6\n")
            // Pushed in the order the statements give them.
            let pushes = run.standardError.split(separator: "\n").filter { $0.hasPrefix("-> [\"push\"") }
            #expect(pushes.count == 5)
        }
    }

    @Test("batch mode sends every statement in order too")
    func batchSendsUnusedStatements() async throws {
        try await withDemoServer { _, batchURL in
            let run = await call(batchURL, ["c = makeCounter(10)", "c.increment(5)", "incrementCounter(c, 2)"], batch: true)
            #expect(run.status == 0)
            #expect(run.standardOutput == "17\n")
        }
    }

    @Test("bidirectional formatting characters in a value from the server are printed as escapes")
    func bidiEscaped() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, [#"echo("a\u202Eb\u2066c\u0007")"#])
            #expect(run.status == 0)
            #expect(run.standardOutput == #""a\u202eb\u2066c\u0007""# + "\n")
        }
    }

    @Test("calls inside a literal array are awaited together")
    func literalWithCalls() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["[square(2), {a: square(3)}]"])
            #expect(run.status == 0)
            #expect(run.standardOutput == "[4,{\"a\":9}]\n")
        }
    }

    @Test("a rejection prints Name: message on standard error and exits 1")
    func rejection() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["throwError(\"boom\")"])
            #expect(run.status == 1)
            #expect(run.standardOutput == "")
            #expect(run.standardError == "Error: boom\n")
        }
    }

    // The command must give up on its own; the limit only turns a hang into a failure.
    @Test("a call that never answers times out with status 124", .timeLimit(.minutes(1)))
    func timeout() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["hang()"], timeout: .milliseconds(500))
            #expect(run.status == 124)
            #expect(run.standardOutput == "")
            #expect(run.standardError == "error: timed out: no answer within 0.5 seconds\n")
        }
    }

    @Test("trace writes every frame to standard error with its direction")
    func trace() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["square(5)"], trace: true)
            #expect(run.status == 0)
            #expect(run.standardOutput == "25\n")
            let lines = run.standardError.split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { $0.hasPrefix("-> ") || $0.hasPrefix("<- ") })
            #expect(lines.contains(#"-> ["push",["pipeline",0,["square"],[5]]]"#))
            #expect(lines.contains(#"-> ["pull",1]"#))
            #expect(lines.contains(#"<- ["resolve",1,25]"#))
        }
    }

    @Test("batch mode sends the pipelined calls in one HTTP request")
    func batch() async throws {
        try await withDemoServer { _, batchURL in
            let run = await call(batchURL, ["u = getUser(7)", "u.profile.displayName"], batch: true, trace: true)
            #expect(run.status == 0)
            #expect(run.standardOutput == "\"User 7\"\n")
            // One request: every call pushed in order, the answer among what came back.
            let lines = run.standardError.split(separator: "\n")
            #expect(lines.filter { $0.hasPrefix("-> [\"push\"") }.count == 2)
            #expect(lines.contains(#"<- ["resolve",2,"User 7"]"#))
        }
    }

    @Test("batch mode substitutes the promises a map result holds")
    func batchMap() async throws {
        try await withDemoServer { _, batchURL in
            let run = await call(batchURL, ["generateFibonacci(6).map(x => square(x))"], batch: true)
            #expect(run.status == 0)
            #expect(run.standardOutput == "[0,1,1,4,9,25]\n")
        }
    }

    @Test("batch mode reports a rejection like WebSocket mode")
    func batchRejection() async throws {
        try await withDemoServer { _, batchURL in
            let run = await call(batchURL, ["throwError(\"boom\")"], batch: true)
            #expect(run.status == 1)
            #expect(run.standardError == "Error: boom\n")
        }
    }

    @Test("a malformed expression exits 2 with the column, sending nothing")
    func parseError() async {
        let run = await call("ws://127.0.0.1:1/ws", ["square(5"])
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("error: column 9: missing ')'"))
    }

    @Test("an unreachable server exits 3")
    func unreachable() async throws {
        // A port that was free a moment ago: nothing listens there any more.
        let port = try await withSocketPeers(main: { _ in TestAPI() }) { peers in peers.server.port }
        let url = "ws://127.0.0.1:\(port)/ws"
        let run = await call(url, ["square(5)"])
        #expect(run.status == 3)
        #expect(run.standardError.hasPrefix("error: cannot connect to \(url)"))
    }

    @Test("--header values reach the server's admission check and main object")
    func headers() async throws {
        try await withSocketPeers(admit: ServerAdmissionTests.admit, main: { WhoAmITarget($0) }) { peers in
            let server = peers.server
            let url = server.webSocketURL.absoluteString
            let refused = await call(url, ["whoami()"])
            #expect(refused.status == 3)
            #expect(refused.standardError.contains("401"))
            let admitted = await call(url, ["whoami()"], headers: ServerAdmissionTests.credentials)
            #expect(admitted.status == 0)
            #expect(admitted.standardOutput == "\"ada by webSocket at /ws\"\n")
            let batch = await call(
                server.batchURL.absoluteString, ["whoami()"], batch: true, headers: ServerAdmissionTests.credentials)
            #expect(batch.standardOutput == "\"ada by batch at /rpc\"\n")
        }
    }

    @Test("--header values must be 'Name: value'")
    func malformedHeaders() throws {
        let parsed = try CallCommand.parse(["ws://127.0.0.1:1/", "x", "--header", "X-User:  ada "])
        #expect(parsed.headers == ["X-User:  ada "])
        #expect(throws: (any Error).self) { try CallCommand.parse(["ws://127.0.0.1:1/", "x", "--header", "no colon"]) }
        #expect(throws: (any Error).self) { try CallCommand.parse(["ws://127.0.0.1:1/", "x", "--header", ": empty name"]) }
    }

    @Test("--ca-cert trusts a server certificate the system does not")
    func trustedCertificate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capnweb-call-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("server.pem").path
        let key = directory.appendingPathComponent("server.key").path
        try await CertificateFixture.shared().copy(.selfSigned, certificateTo: certificate, keyTo: key)

        let options = ServeOptions(host: "127.0.0.1", port: 0, tlsCertificate: certificate, tlsKey: key)
        try await withDemoServer(options) { url, _ in
            #expect(url.hasPrefix("wss://"))
            let untrusted = await call(url, ["square(5)"])
            #expect(untrusted.status == 3)
            let trusted = await call(url, ["square(5)"], caCertificates: [certificate])
            #expect(trusted.status == 0)
            #expect(trusted.standardOutput == "25\n")
        }
    }

    @Test("calling a literal is an evaluation error")
    func callingALiteral() async throws {
        try await withDemoServer { url, _ in
            let run = await call(url, ["5(1)"])
            #expect(run.status == 2)
            #expect(run.standardError == "error: '5' is a value here, not a function that can be called\n")
        }
    }
}
