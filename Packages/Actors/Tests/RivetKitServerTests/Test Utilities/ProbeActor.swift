import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcTransportNIO
import Synchronization

/// An actor type whose every hook records itself, with vars, connection state, per-connection
/// events, destruction and a slow action: what the lifecycle, connection, sleep, destroy and
/// timeout tests drive.
final class ProbeActor: Sendable {
    /// The probe's state.
    struct Count: Codable, Sendable, Equatable {
        var count = 0
        var created = false
    }

    /// The vars each start makes: which start it was.
    final class Vars: Sendable {
        let generation: Int
        let hits = Mutex(0)
        init(generation: Int) { self.generation = generation }
    }

    /// The connection parameters.
    struct Params: Decodable, Sendable {
        var user: String
    }

    /// A connection's state.
    struct ConnState: Sendable {
        var user: String
        var calls = 0
    }

    private let log = Mutex<[String]>([])
    private let generations = Mutex(0)
    /// What the `hold` action's background work and the `block` action wait for.
    let gate = ServerLimitTests.Gate()

    /// Every hook and action run so far, in order.
    var events: [String] { log.withLock { $0 } }

    func record(_ event: String) {
        log.withLock { $0.append(event) }
    }

    /// Forgets the events so far.
    func reset() {
        log.withLock { $0 = [] }
    }

    /// A registry with the probe actor, `probe`, under `options`.
    func registry(_ options: ActorDefinitionOptions = ActorDefinitionOptions()) -> ActorRegistry {
        var registry = ActorRegistry()
        registry.register(definition(options))
        return registry
    }

    func definition(_ options: ActorDefinitionOptions) -> ActorDefinition<Count> {
        ActorDefinition("probe", initialState: Count())
            .options(options)
            .onCreate { context in
                self.record("onCreate")
                context.state.created = true
            }
            .createVars { _ in
                self.record("createVars")
                return Vars(generation: self.generations.withLock { $0 += 1; return $0 })
            }
            .onWake { context in
                self.record("onWake \(try context.vars(as: Vars.self).generation)")
            }
            .onSleep { context in
                self.record("onSleep \(context.state.count)")
            }
            .onDestroy { _ in self.record("onDestroy") }
            .onStateChange { _, state in self.record("onStateChange \(state.count)") }
            .onBeforeConnect { (_: ActorLifecycleContext<Count>, info: ActorConnectionInfo) in
                self.record("onBeforeConnect")
                if info.params?["user"] == "mallory" {
                    throw ActorError(group: "auth", code: "forbidden", message: "not mallory")
                }
            }
            .createConnState { (_, params: Params?) in
                self.record("createConnState")
                return ConnState(user: params?.user ?? "anonymous")
            }
            .onConnect { (_: inout ActorLifecycleContext<Count>, connection: ActorConn) in
                self.record("onConnect \(try connection.state(as: ConnState.self).user)")
            }
            .onDisconnect { (_: inout ActorLifecycleContext<Count>, connection: ActorConn) in
                self.record("onDisconnect \(try connection.state(as: ConnState.self).user)")
            }
            .action("increment") { (context: inout ActorContext<Count>, by: Int) in
                self.record("increment")
                context.state.count += by
                return context.state.count
            }
            .action("getCount") { context in context.state.count }
            .action("created") { context in context.state.created }
            .action("generation") { context in try context.vars(as: Vars.self).generation }
            .action("hit") { context in try context.vars(as: Vars.self).hits.withLock { $0 += 1; return $0 } }
            .action("whoAmI") { context in try context.connection.state(as: ConnState.self).user }
            .action("countCall") { context in
                var state = try context.connection.state(as: ConnState.self)
                state.calls += 1
                context.connection.state = state
                return state.calls
            }
            .action("connections") { context in context.connections.map { $0.id } }
            .action("me") { context in context.connection.id }
            .action("poke") { (context: inout ActorContext<Count>, target: String, text: String) in
                for connection in context.connections where connection.id == target {
                    try connection.send("poked", text, context.connection.id)
                }
                return true
            }
            .action("kick") { (context: inout ActorContext<Count>, target: String, reason: String) in
                for connection in context.connections where connection.id == target {
                    connection.disconnect(reason: reason)
                }
                return true
            }
            .action("destroySelf") { context in
                context.destroy()
                return "bye"
            }
            .action("hold") { context in
                context.keepAwake { await self.gate.pass() }
                return true
            }
            .action("background") { context in
                context.runInBackground {
                    await self.gate.pass()
                    self.record("background done")
                }
                return true
            }
            .action("block") { _ in
                // Ends only when cancelled (the action timeout).
                try await Task.sleep(for: .seconds(3600))
                return false
            }
    }

    /// Creates a probe actor over REST; returns its id.
    static func create(_ server: InProcessServer, key: String) async throws -> String {
        let body: JSONValue = ["name": "probe", "key": .string(ActorKey.serialize([key]))]
        let (status, text) = await server.request(.PUT, "/actors", json: body.description)
        guard status == 200, case .string(let id)? = try JSONValue(parsing: text)["actor"]?["actor_id"] else {
            throw ServerHarness.Unexpected()
        }
        return id
    }

    /// The gateway path of a realtime connection to the probe actor `key`.
    static func connectPath(key: String) -> String {
        "/gateway/probe/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=\(key)"
    }
}

extension FrameInbox {
    /// Reads the `Init` frame; returns the connection id.
    func initialized() async throws -> String {
        guard case .initialize(_, let connectionId) = try await nextMessage() else { throw ServerHarness.Unexpected() }
        return connectionId
    }

    /// Calls action `name` and returns its output, skipping events; throws the action's error.
    func call(_ id: UInt64, _ name: String, _ args: [JSONValue] = []) async throws -> JSONValue {
        try await send(.actionRequest(id: id, name: name, args: args))
        while true {
            switch try await nextMessage() {
            case .actionResponse(id, let output): return output
            case .error(let error, id): throw error
            default: continue
            }
        }
    }
}
