@testable import RivetKit
import RivetKitServer
import RpcDoTesting
import Synchronization
import Testing

@Suite("Realtime actions through the managed channel: interceptors, time limits, local failures")
struct ActionInterceptorTests {
    /// Records every call it sees and refuses those whose metadata asks for it.
    final class Recorder: ClientInterceptor {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "refused by the interceptor" }
        }

        private let seen = Mutex<[ClientCall]>([])

        /// The calls seen, in order.
        var calls: [ClientCall] { seen.withLock { $0 } }

        func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
            seen.withLock { $0.append(call) }
            if call.metadata["refuse"] == "yes" { throw Refused() }
            return try await next(call)
        }
    }

    @Test("An interceptor sees every action with its name, metadata and time limit, and one it refuses never reaches the actor")
    func interceptorSeesAndRefuses() async throws {
        let recorder = Recorder()
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client {
                $0.interceptors = [recorder]
                $0.actionTimeout = .seconds(30)
            }
            let connection = client.getOrCreate("counter", key: ["intercepted"]).connect()
            connection.start()
            #expect(try await connection.action("increment", args: [1], metadata: ["trace": "a"]) == 1)
            let refused = await #expect(throws: ActorError.self) {
                try await connection.action("increment", args: [10], metadata: ["refuse": "yes"])
            }
            #expect(refused?.errorCode == .clientInternalError)
            // The refused increment never ran: the count goes on from 1.
            #expect(try await connection.action("increment", args: [1], metadata: ["trace": "c"]) == 2)
            #expect(try await connection.action("getCount", args: []) == 2)
            let calls = recorder.calls
            #expect(calls.map(\.method) == ["increment", "increment", "increment", "getCount"])
            #expect(calls.map { $0.metadata } == [["trace": "a"], ["refuse": "yes"], ["trace": "c"], [:]])
            #expect(calls.allSatisfy { $0.timeout == .seconds(30) && !$0.isIdempotent })
            #expect(Set(calls.map(\.id)).count == calls.count)
            #expect(connection.pendingActionCount == 0)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("An interceptor's own error fails the action locally as client.internal_error, and an ActorError it throws is kept")
    func localFailureIsLocal() async throws {
        struct Thrower: ClientInterceptor {
            func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
                if call.method == "getCount" { throw Recorder.Refused() }
                if call.method == "fail" { throw ActorError(.clientNotConnected, "kept") }
                return try await next(call)
            }
        }
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client { $0.interceptors = [Thrower()] }
            let connection = client.getOrCreate("counter", key: ["local"]).connect()
            connection.start()
            let local = await #expect(throws: ActorError.self) { try await connection.action("getCount", args: []) }
            #expect(local?.group == "client")
            #expect(local?.errorCode == .clientInternalError)
            #expect(local?.rpcFailure.origin == .local)
            #expect(local?.rpcFailure.code == .internalError)
            #expect(local?.isTransient == false)
            let kept = await #expect(throws: ActorError.self) { try await connection.action("fail", args: []) }
            #expect(kept == ActorError(.clientNotConnected, "kept"))
            // The connection is unharmed.
            #expect(try await connection.action("increment", args: [3]) == 3)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("An action the actor never answers fails with client.action_timeout after actionTimeout, and its late answer is dropped")
    func unansweredActionTimesOut() async throws {
        let gate = ServerLimitTests.Gate()
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("stuck", initialState: 0)
                .action("hang") { (context: inout ActorContext<Int>) in
                    await gate.pass()
                    context.state += 1
                    return context.state
                }
                .action("get") { (context: inout ActorContext<Int>) in context.state })
        try await InProcessServer.with(registry: registry) { (server: InProcessServer) async throws in
            let client = server.client { $0.actionTimeout = .milliseconds(200) }
            let connection = client.getOrCreate("stuck", key: ["t"]).connect()
            connection.start()
            // Deadline test: this waits for the action's time limit to pass.
            let timedOut = await #expect(throws: ActorError.self) { try await connection.action("hang", args: []) }
            #expect(timedOut?.errorCode == .clientActionTimeout)
            #expect(timedOut?.rpcFailure.code == .deadlineExceeded)
            #expect(timedOut?.rpcFailure.origin == .local)
            #expect(connection.pendingActionCount == 0)
            #expect(gate.waiting == 1)
            // The actor finishes the action now; its answer comes to nobody.
            gate.open()
            #expect(try await connection.action("get", args: []) == 1)
            #expect(connection.status == .connected)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("The channel's own failures map to the client catalogue, and only connection-level ones are transient")
    func channelFailuresMap() {
        let cases: [(ManagedConnectionError.Code, ActorErrorCode, Bool)] = [
            (.timeout, .clientActionTimeout, false),
            (.connectionLost, .clientConnectionLost, true),
            (.notConnected, .clientNotConnected, true),
            (.offlineQueueFull, .clientNotConnected, true),
            (.closed, .clientDisposed, false),
            (.cancelled, .clientCancelled, false),
            (.invalidRequest, .clientInternalError, false),
        ]
        for (code, expected, transient) in cases {
            let error = ActorError.channel(ManagedConnectionError(code, "m"))
            #expect(error.errorCode == expected)
            #expect(error.message == "m")
            #expect(error.isTransient == transient)
            #expect(error.rpcFailure.origin == .local)
        }
        #expect(!ActorError(group: "user", code: "test_error").isTransient)
        #expect(ActorError.local(Recorder.Refused()).errorCode == .clientInternalError)
    }
}
