import CapnWeb
import Foundation
import NIOHTTP1
import RpcDo
import RpcTransport
import RpcTransportNIO
import Synchronization
import Testing

/// RpcDo's error, which the tests mean when they say `RpcError` (CapnWeb has one too).
typealias RpcError = RpcDo.RpcError

/// State shared by every session of one test server: call counts and scripted failures.
final class ServiceState: Sendable {
    private struct Counts {
        var calls: [String: Int] = [:]
        var rateLimitsLeft = 0
        var retryAfter: RpcPayload = .double(0.2)
    }

    private let counts = Mutex(Counts())

    /// How many times `method` ran.
    func calls(_ method: String) -> Int { counts.withLock { $0.calls[method, default: 0] } }

    func record(_ method: String) { counts.withLock { $0.calls[method, default: 0] += 1 } }

    /// Makes the next `count` calls of `limited` fail with RateLimitExceeded, whose
    /// `retryAfter` property is `retryAfter`.
    func rateLimitNext(_ count: Int, retryAfter: RpcPayload = .double(0.2)) {
        counts.withLock {
            $0.rateLimitsLeft = count
            $0.retryAfter = retryAfter
        }
    }

    /// The `retryAfter` of the next rate limit, or `nil` when the call is not limited.
    func takeRateLimit() -> RpcPayload? {
        counts.withLock { counts in
            guard counts.rateLimitsLeft > 0 else { return nil }
            counts.rateLimitsLeft -= 1
            return counts.retryAfter
        }
    }
}

/// The main object of the tests: users with profiles, arithmetic, slow and failing calls.
final class TestService: RpcTarget {
    let state: ServiceState
    init(state: ServiceState) { self.state = state }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        state.record(method)
        switch method {
        case "echo":
            return arguments.values.first ?? .undefined
        case "square":
            let n = try arguments.decode(0, as: Int.self)
            return .integer(Int64(n * n))
        case "list":
            let n = try arguments.decode(0, default: 3)
            return .array((1...max(1, n)).map { .integer(Int64($0)) })
        case "slow":
            let milliseconds = try arguments.decode(0, as: Int.self)
            try await Task.sleep(for: .milliseconds(milliseconds))
            return .string("done")
        case "increment":
            return .integer(Int64(state.calls("increment")))
        case "limited":
            if let retryAfter = state.takeRateLimit() {
                throw RpcErrorValue(name: "RateLimitExceeded", message: "slow down", properties: [.init("retryAfter", retryAfter)])
            }
            return .string("ok")
        case "fail":
            let name = try arguments.decode(0, as: String.self)
            throw RpcErrorValue(name: name, message: "failed with \(name)")
        case "ticks":
            let n = try arguments.decode(0, as: Int.self)
            return .readable(RpcReadableStream(elements: (1...max(1, n)).map { .integer(Int64($0)) }))
        case "authenticate":
            let token = try arguments.decode(0, as: String.self)
            guard token == "secret" else { throw RpcErrorValue(name: "Unauthenticated", message: "bad token") }
            return .stub(RpcStub(Users(state: state)))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }

    func property(_ name: String) async throws -> RpcPayload {
        switch name {
        case "users": return .stub(RpcStub(Users(state: state)))
        case "version": return .string("1.0")
        default: return .undefined
        }
    }
}

/// `users`: `get(id)` returns a user object with a profile; `profileName(id)` a string.
final class Users: RpcTarget {
    let state: ServiceState
    init(state: ServiceState) { self.state = state }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        state.record("users.\(method)")
        switch method {
        case "get":
            let id = try arguments.decode(0, as: String.self)
            guard id != "missing" else { throw RpcErrorValue(name: "NotFound", message: "no user \(id)") }
            return .object([
                .init("id", .string(id)),
                .init("name", .string("User \(id)")),
                .init("profile", .object([.init("displayName", .string("Display \(id)"))])),
            ])
        case "profileName":
            let id = try arguments.decode(0, as: String.self)
            return .string("Profile of \(id)")
        case "list":
            return .array(["1", "2", "3"].map { .object([.init("id", .string($0))]) })
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }

    func property(_ name: String) async throws -> RpcPayload {
        name == "current" ? .object([.init("id", .string("me")), .init("name", .string("Me"))]) : .undefined
    }
}

/// A Cap'n Web server on 127.0.0.1 for fault tests: it records upgrade headers, can drop every
/// connection, and can refuse new ones (a server that is down) until told otherwise.
final class FaultyServer: Sendable {
    private struct State {
        var transports: [WebSocketTransport] = []
        var headers: [[String: String]] = []
        var refusing = false
    }

    let service = ServiceState()
    private let lock = Mutex(State())

    /// Every upgrade's headers, in order.
    var upgradeHeaders: [[String: String]] { lock.withLock { $0.headers } }

    /// Refuse (503) or accept new connections.
    func setRefusing(_ refusing: Bool) { lock.withLock { $0.refusing = refusing } }

    /// Closes every open connection, as a crashing server would.
    func dropAll() async {
        let transports = lock.withLock { state in
            defer { state.transports = [] }
            return state.transports
        }
        for transport in transports { await transport.close(code: .goingAway, reason: "server restart") }
    }

    /// Runs the server while `body` runs.
    func run<T>(port: Int = 0, _ body: (_ url: String) async throws -> T) async throws -> T {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: port))
        configuration.shutdownGracePeriod = .seconds(2)
        configuration.upgradeHook = { [self] request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.lowercased()] = value }
            let refusing = lock.withLock { state in
                state.headers.append(headers)
                return state.refusing
            }
            return refusing ? .reject(status: 503) : .accept()
        }
        let service = self.service
        return try await withTransportServer(
            configuration: configuration,
            onConnection: { [self] transport, _ in
                lock.withLock { $0.transports.append(transport) }
                let session = RpcSession<Any>.start(transport: transport, main: TestService(state: service))
                for await state in transport.stateUpdates() where state.isClosed { break }
                await session.close()
            }
        ) { server in
            try await body("ws://127.0.0.1:\(server.port ?? 0)/rpc")
        }
    }
}

/// Collects connection states in the background of a test.
final class StateLog: Sendable {
    private let states = Mutex<[String]>([])
    var all: [String] { states.withLock { $0 } }
    func append(_ state: ConnectionState) { states.withLock { $0.append(state.description) } }
}

/// What `body` returns, or the RpcError it throws (any other error is recorded as an issue).
func result<T>(_ body: () async throws -> T) async -> Result<T, RpcError> {
    do {
        return .success(try await body())
    } catch let error as RpcError {
        return .failure(error)
    } catch {
        Issue.record("unexpected error \(error)")
        return .failure(.remote(type: "unexpected", message: "\(error)"))
    }
}

/// Keeps the client a scoped test saw.
final class Recorder: Sendable {
    private let stored = Mutex<RpcClient?>(nil)
    var client: RpcClient? { stored.withLock { $0 } }
    func set(_ client: RpcClient) { stored.withLock { $0 = client } }
}
