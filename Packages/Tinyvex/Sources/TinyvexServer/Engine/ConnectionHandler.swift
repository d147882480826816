import Foundation
import RpcTransport
import RpcWire
import Synchronization
import TinyvexProtocol
import Tracing

/// Serves one client connection: reads its requests in order, answers each, runs actions
/// concurrently and writes the connection's send queue. Liveness is the transport's: the
/// WebSocket server pings every connection.
struct ConnectionHandler: Sendable {
    let engine: TinyvexEngine
    let serverVersion: String
    /// This connection's own auth hook, which replaces the configuration's and is asked for
    /// tokenless connects too (``TinyvexServer/serve(_:authenticate:)``).
    var connectionAuthenticate: TinyvexServer.ConnectionAuthenticate?

    /// Serves `transport` with `traceParent` (the trace context its client sent with the
    /// upgrade) as the current context, so that the spans of its mutations and queries are its
    /// children; without one, as the caller's context is.
    func serve(_ transport: any MessageTransport, traceParent: ServiceContext?) async {
        guard let traceParent else {
            await serve(transport)
            return
        }
        await ServiceContext.withValue(traceParent) { await serve(transport) }
    }

    func serve(_ transport: any MessageTransport) async {
        let configuration = engine.configuration
        // A limit passed ends the connection with 1008 at once: the callbacks ask, a task of
        // this connection's group closes.
        let (closeRequests, requestClose) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(1))
        let outbox = Outbox(
            pauseItems: configuration.maxSendQueue, pauseBytes: configuration.sendQueuePauseBytes, maxBytes: configuration.maxSendQueueBytes,
            stats: engine.sendQueueStats,
            onOverflow: {
                // The client does not read what it asked for: end the connection with a clear
                // code rather than hold more for it.
                requestClose.yield(Self.sendQueueOverflow(configuration))
            })
        let actions = ActionCounter(limit: configuration.maxPendingActionsPerConnection)
        let connectionID = await engine.register(outbox: outbox)
        let inboundOverflowed = Atomic<Bool>(false)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await reason in closeRequests {
                    await transport.close(code: .policyViolation, reason: reason)
                    return
                }
            }
            group.addTask {
                // One item at a time, so a value that waits is always the newest one.
                var transitions: UInt64 = 0
                while let item = await outbox.next() {
                    for message in render(item, transitions: &transitions) {
                        do {
                            try await transport.send(message)
                        } catch {
                            // Nothing more can be sent: wake a reader waiting for room.
                            outbox.close()
                            return
                        }
                    }
                }
            }
            // A request is in flight from its arrival until it is answered (or dropped).
            let inbound = InboundQueue(maxBytes: configuration.maxInboundBacklogBytes, work: engine.requestsInFlight) {
                requestClose.yield(Self.inboundOverflow)
            }
            transport.start { event in
                switch event {
                case .message(let message):
                    inbound.push(message)
                case .closed:
                    inbound.finish()
                    // Nothing more can be sent either: a reader waiting for room goes on.
                    outbox.close()
                }
            }
            defer { inboundOverflowed.store(inbound.overflowed, ordering: .releasing) }
            while let message = await inbound.next() {
                await receive(message, connectionID: connectionID, outbox: outbox, actions: actions, group: &group)
                engine.requestsInFlight.end()
                // No more requests are handled while their answers wait unread.
                guard await outbox.waitForRoom() else { break }
            }
            inbound.discardRemaining()
            outbox.close()
            requestClose.finish()
            group.cancelAll()
        }
        await engine.unregister(connectionID)
        // Whichever close comes first, a connection cut for a limit says which.
        if outbox.overflowed {
            await transport.close(code: .policyViolation, reason: Self.sendQueueOverflow(configuration))
        } else if inboundOverflowed.load(ordering: .acquiring) {
            await transport.close(code: .policyViolation, reason: Self.inboundOverflow)
        } else {
            await transport.close(code: .normal, reason: "")
        }
    }

    private static func sendQueueOverflow(_ configuration: TinyvexServerConfiguration) -> String {
        "the client does not read: over \(configuration.maxSendQueueBytes) bytes wait (maxSendQueueBytes)"
    }

    private static let inboundOverflow = "requests arrive faster than they are answered (maxInboundBacklogBytes)"

    /// The messages of one queued item; a value is wrapped for its subscription here, as it is
    /// written, so that the queue holds its shared encoding only.
    private func render(_ item: Outbox.Item, transitions: inout UInt64) -> [TransportMessage] {
        switch item.payload {
        case .messages(let messages):
            return messages
        case .value(let seq, let value):
            guard case .data(let subID) = item.kind else { return [] }
            return Wire.data(subID: subID, seq: seq, value: value, maxChunkBytes: engine.configuration.maxChunkBytes, transitionID: {
                transitions &+= 1
                return "t\(transitions)"
            }())
        case .transition(let transition):
            return Wire.transition(transition, maxChunkBytes: engine.configuration.maxChunkBytes, transitionID: {
                transitions &+= 1
                return "t\(transitions)"
            }())
        }
    }

    private func receive(_ message: TransportMessage, connectionID: UInt64, outbox: Outbox, actions: ActionCounter, group: inout DiscardingTaskGroup) async {
        let value: JSONValue
        do {
            value = try JSONParser(configuration: Wire.codec.parserConfiguration).parse(message.bytes)
        } catch {
            outbox.push(.init(kind: .control, messages: [Wire.encode(.failure(id: .null, error: .parseError(error.description)))]))
            return
        }
        let elements: [Result<JSONRPCMessage, WireError>]
        do {
            elements = try Wire.codec.decodeEach(value)
        } catch {
            outbox.push(.init(kind: .control, messages: [Wire.encode(.failure(id: .null, error: .invalidRequest(error.description)))]))
            return
        }
        let raw: [JSONValue] = if case .array(let items) = value { items } else { [value] }
        for (position, element) in elements.enumerated() {
            switch element {
            case .failure(let error):
                // Answer with the request's id when it is readable, so the caller can match it.
                let id = (raw.indices.contains(position) ? raw[position]["id"] : nil).flatMap { try? JSONRPCID($0) } ?? .null
                outbox.push(.init(kind: .control, messages: [Wire.encode(Wire.codec.errorResponse(for: error, id: id))]))
            case .success(.request(let id, let method, let params)):
                if method == TinyvexMethod.action {
                    guard actions.begin() else {
                        let refused = TinyvexServerError(
                            .mutationFailed,
                            "the connection has the most actions running allowed (maxPendingActionsPerConnection \(actions.limit))",
                            details: ["reason": "tooManyActions"])
                        outbox.push(.init(kind: .control, messages: [Wire.encode(.failure(id: id, error: Wire.errorObject(refused)))]))
                        continue
                    }
                    group.addTask {
                        await self.action(id: id, params: params, connectionID: connectionID, outbox: outbox)
                        actions.end()
                    }
                } else {
                    let answer = await call(method, params: params, connectionID: connectionID, outbox: outbox)
                    let reply: JSONRPCMessage =
                        switch answer {
                        case .success(let result): .success(id: id, result: result)
                        case .failure(let error): .failure(id: id, error: error)
                        }
                    outbox.push(.init(kind: .control, messages: [Wire.encode(reply)]))
                }
            case .success(.notification(let method, _)):
                // Every Tinyvex method is a request: a call without an id cannot be answered by
                // id, so it is refused with id null rather than dropped unseen.
                outbox.push(.init(kind: .control, messages: [
                    Wire.encode(.failure(id: .null, error: .invalidRequest("\(method) is a request and needs an id"))),
                ]))
            case .success(.success), .success(.failure):
                break  // The server sends no requests, so there is nothing to match.
            }
        }
    }

    private func call(_ method: String, params: JSONRPCParams?, connectionID: UInt64, outbox: Outbox) async -> Result<JSONValue, JSONRPCErrorObject> {
        do {
            switch try TinyvexRequest(method: method, params: params, maxIdentifierBytes: engine.configuration.maxIdentifierBytes) {
            case .connect(let clientID, let token, let transitions):
                if let clientID {
                    await engine.setClientID(clientID, for: connectionID)
                }
                await engine.setTransitions(transitions, for: connectionID)
                let identity = try await authenticate(token, connectionID: connectionID)
                let features: JSONObject = [
                    "chunks": true, "maxChunkBytes": .integer(Int64(clamping: engine.configuration.maxChunkBytes)), "transitions": .bool(transitions),
                ]
                return .success(.object([
                    "serverVersion": .string(serverVersion), "nowTs": .integer(Self.nowMilliseconds()),
                    "features": .object(features), "identity": identity.map(JSONValue.string) ?? .null,
                ]))
            case .subscribe(let subID, let name, let queryParams, let lastSeq):
                let subscribed = try await Self.tinyvex { () async throws(TinyvexServerError) in
                    try await engine.subscribe(connectionID: connectionID, subID: subID, name: name, params: queryParams, lastSeq: lastSeq)
                }
                return .success(["accepted": true, "resumed": .bool(subscribed.resumed), "seq": .integer(subscribed.seq)])
            case .unsubscribe(let subID):
                try await Self.tinyvex { () async throws(TinyvexServerError) in try await engine.unsubscribe(connectionID: connectionID, subID: subID) }
                return .success(["ok": true])
            case .query(let name, let queryParams):
                let identity = await engine.identity(of: connectionID)
                let answer = try await Self.tinyvex { () async throws(TinyvexServerError) in
                    try await engine.queryOnce(name: name, params: queryParams, identity: identity)
                }
                return .success(["value": answer.value, "seq": .integer(answer.seq)])
            case .mutation(let requestID, let clientID, let name, let args):
                let identity = await engine.identity(of: connectionID)
                let outcome = try await Self.tinyvex { () async throws(TinyvexServerError) in
                    try await engine.mutate(
                        connectionID: connectionID, identity: identity, clientID: clientID, requestID: requestID, name: name, args: args)
                }
                return .success(["requestId": .string(requestID), "value": outcome.value, "seq": .integer(outcome.seq)])
            case .action:
                // Actions run concurrently; `receive` starts them.
                return .failure(.internalError("an action is not a call"))
            case .setToken(let token):
                let identity = try await authenticate(token, connectionID: connectionID)
                return .success(["ok": true, "identity": identity.map(JSONValue.string) ?? .null])
            case .ping(let t):
                return .success(Self.pingAnswer(t))
            }
        } catch {
            return .failure(error)
        }
    }

    private func action(id: JSONRPCID, params: JSONRPCParams?, connectionID: UInt64, outbox: Outbox) async {
        let reply: JSONRPCMessage
        do throws(JSONRPCErrorObject) {
            guard case .action(let requestID, let name, let args) = try TinyvexRequest(
                method: TinyvexMethod.action, params: params, maxIdentifierBytes: engine.configuration.maxIdentifierBytes)
            else { throw .internalError("not an action") }
            let identity = await engine.identity(of: connectionID)
            let value = try await Self.tinyvex { () async throws(TinyvexServerError) -> JSONValue in
                try await runAction(name: name, args: args, identity: identity, connectionID: connectionID)
            }
            reply = .success(id: id, result: ["requestId": .string(requestID), "value": value])
        } catch {
            reply = .failure(id: id, error: error)
        }
        outbox.push(.init(kind: .control, messages: [Wire.encode(reply)]))
    }

    private func runAction(name: String, args: JSONValue, identity: String?, connectionID: UInt64) async throws(TinyvexServerError) -> JSONValue {
        guard let function = engine.schema.actions[name] else {
            throw TinyvexServerError(.mutationFailed, "no action named \(name)")
        }
        if function.requiresIdentity, identity == nil {
            throw TinyvexServerError(.unauthorized, "the action \(name) needs an identity")
        }
        let context = TinyvexActionContext(identity: identity, engine: engine, connectionID: connectionID)
        let timeout = engine.configuration.actionTimeout
        let outcome = try? await Deadline.race(timeout) { () async -> Result<JSONValue, TinyvexServerError> in
            do {
                return .success(try await function.body(context, args))
            } catch let error as TinyvexServerError {
                return .failure(error)
            } catch {
                return .failure(TinyvexServerError(.mutationFailed, "the action \(name) failed: \(error)"))
            }
        }
        guard let outcome else {
            if Task.isCancelled { throw TinyvexServerError(.timeout, "the action \(name) was cancelled") }
            throw TinyvexServerError(.timeout, "the action \(name) ran longer than \(timeout)")
        }
        return try outcome.get()
    }

    private func authenticate(_ token: String?, connectionID: UInt64) async throws(JSONRPCErrorObject) -> String? {
        if let connectionAuthenticate, token == nil {
            // The connection's own hook may know who is there without a token (the request's
            // authenticated user); nil is then no identity, not a refusal.
            let identity: String?
            do {
                identity = try await connectionAuthenticate(nil)
            } catch let error as TinyvexServerError where error.code == .unauthorized {
                throw Wire.errorObject(error)
            } catch {
                throw Wire.errorObject(TinyvexServerError.tokenRefused("the connection was refused: \(error)"))
            }
            await engine.setIdentity(identity, for: connectionID)
            return identity
        }
        guard let token else {
            await engine.setIdentity(nil, for: connectionID)
            return nil
        }
        let hook: (@Sendable (String) async throws -> String?)?
        if let connectionAuthenticate {
            hook = { token in try await connectionAuthenticate(token) }
        } else {
            hook = engine.configuration.authenticate
        }
        guard let hook else { return nil }
        let answer: String?
        do {
            answer = try await hook(token)
        } catch let error as TinyvexServerError where error.code == .unauthorized {
            throw Wire.errorObject(error)
        } catch {
            throw Wire.errorObject(TinyvexServerError.tokenRefused("the token was refused: \(error)"))
        }
        guard let identity = answer else {
            throw Wire.errorObject(TinyvexServerError.tokenRefused())
        }
        await engine.setIdentity(identity, for: connectionID)
        return identity
    }

    /// Runs an engine call and turns its error into the answer's error object.
    private static func tinyvex<T>(_ body: () async throws(TinyvexServerError) -> T) async throws(JSONRPCErrorObject) -> T {
        do {
            return try await body()
        } catch {
            throw Wire.errorObject(error)
        }
    }

    /// The answer to `tinyvex/ping`, a no-op kept for older clients: the caller's `t`, or the
    /// server's clock.
    private static func pingAnswer(_ t: JSONValue?) -> JSONValue {
        ["t": t ?? .integer(nowMilliseconds())]
    }

    static func nowMilliseconds() -> Int64 {
        Int64(exactly: (Date().timeIntervalSince1970 * 1000).rounded(.down)) ?? 0
    }
}
