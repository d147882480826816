import RivetKit
import RpcTransport
import RpcTransportNIO
import Tracing

extension ActorServerCore {
    /// Decides about a WebSocket upgrade: gateway `…/connect` and raw `…/websocket/…` paths
    /// that offer the `rivet` subprotocol are accepted with it (RivetKit's client fails without
    /// it); others are refused.
    static func decideUpgrade(_ request: WebSocketUpgradeRequest) -> WebSocketUpgradeDecision {
        guard request.path.hasPrefix("/gateway/"),
            request.path.hasSuffix("/connect") || isRawPath(request.path, route: "websocket")
        else {
            return .reject(status: 404)
        }
        guard request.offeredSubprotocols.contains("rivet") else { return .reject(status: 400) }
        return .accept(subprotocol: "rivet")
    }

    /// Serves one realtime connection until it closes and its last action has answered.
    ///
    /// Frames are handled as the transport delivers them, on the connection's event loop. Each
    /// action takes its place in the actor's queue there, in arrival order, and starts at once
    /// on that loop: one that does not suspend (a read of the state, say) answers before the
    /// loop reads on, so its reply is written with the others of the same read, without a hop
    /// to another thread and back.
    ///
    /// A connection closed by the server (a hostile frame, the actor's destruction) is closed
    /// here, in the task that serves it: serving returns once that close has finished.
    ///
    /// Any message transport is served: the gateway's WebSocket, or one end of an in-process
    /// pair (the upgrade request then describes the connection the client asked for).
    func serve(_ transport: any MessageTransport, request: WebSocketUpgradeRequest) async {
        if Self.isRawPath(request.path, route: "websocket") {
            await serveRawWebSocket(transport, request: request)
            return
        }
        let tracker = ConnectionTracker(
            limit: max(configuration.maxActionsInFlightPerConnection, 1),
            byteLimit: max(configuration.maxPendingActionBytesPerConnection, 0),
            serverWork: actionsInFlight)
        let instance: ActorInstance
        let connection: ActorConn
        do throws(ActorError) {
            (instance, connection) = try await open(transport, request: request, tracker: tracker)
        } catch {
            if let owner = LeasePlacement.owner(of: error) {
                await forward(transport, request: request, to: owner, error: error)
                return
            }
            await Self.close(transport, with: error)
            return
        }
        defer { instance.leave() }
        // The actions' spans join the trace the client sent with its upgrade, if any.
        let traceParent = instance.traceParent(of: request.headers)
        _ = try? transport.enqueue(.text(RivetMessageCodec.encode(ServerMessage.initialize(
            actorId: instance.record.id, connectionId: connection.id))))
        let executor = transport.executor
        let maxFrameSize = configuration.maxMessageSize
        let budget = OutboundBudget(limit: configuration.maxPendingBytesPerConnection)
        let timer = self.timer
        transport.start { event in
            switch event {
            case .message(let message):
                Self.handle(
                    message, transport: transport, instance: instance, connection: connection, tracker: tracker,
                    executor: executor, maxFrameSize: maxFrameSize, budget: budget, timer: timer,
                    traceParent: traceParent)
            case .closed:
                tracker.close()
            }
        }
        while case .close(let close) = await tracker.next() {
            switch close {
            case .error(let error):
                await Self.close(transport, with: error)
            case .normal(let reason):
                await transport.close(code: .normal, reason: reason)
            }
        }
        await instance.disconnect(connection)
    }

    /// Handles one inbound frame of a connection, on the thread that delivered it.
    private static func handle(
        _ message: TransportMessage, transport: any MessageTransport, instance: ActorInstance,
        connection: ActorConn, tracker: ConnectionTracker, executor: (any TaskExecutor)?, maxFrameSize: Int,
        budget: OutboundBudget, timer: DeadlineTimer, traceParent: ServiceContext?
    ) {
        guard tracker.isReading else { return }
        guard message.kind == .text else {
            stop(tracker, with: .malformed("frames of the json encoding are text"))
            return
        }
        let decoded: ClientMessage
        do throws(ActorError) {
            decoded = try RivetMessageCodec.decodeClientMessage(utf8: message.bytes)
        } catch {
            stop(tracker, with: error)
            return
        }
        switch decoded {
        case .subscriptionRequest(let eventName, let subscribe):
            do throws(ActorError) {
                try instance.broadcaster.update(connectionId: connection.id, event: eventName, subscribe: subscribe)
            } catch {
                _ = try? transport.enqueue(.text(utf8: RivetMessageCodec.frame(ServerMessage.error(error, actionId: nil))))
            }
        case .actionRequest(let id, let name, let args):
            let size = message.bytes.count
            switch tracker.admit(bytes: size) {
            case .admitted:
                break
            case .tooMany:
                let error = ActorError(
                    .actionTooManyInFlight,
                    "a connection may have \(tracker.limit) actions in flight")
                _ = try? transport.enqueue(.text(utf8: RivetMessageCodec.frame(ServerMessage.error(error, actionId: id))))
                return
            case .tooManyBytes:
                let error = ActorError(
                    .actionTooManyPendingBytes,
                    "a connection's waiting actions may hold \(tracker.byteLimit) bytes",
                    metadata: ["limit": .integer(Int64(tracker.byteLimit))])
                _ = try? transport.enqueue(.text(utf8: RivetMessageCodec.frame(ServerMessage.error(error, actionId: id))))
                return
            }
            let reply = Reply(
                id: id, transport: transport, maxFrameSize: maxFrameSize, budget: budget, tracker: tracker, bytes: size)
            // An action that does not suspend, on an idle actor, is answered before the loop
            // reads on, without a task of its own.
            switch instance.performImmediately(name, args: args, connection: connection, traceParent: traceParent) {
            case .answered(let outcome):
                reply.send(outcome)
            case .saving(let saving):
                run(reply, instance: instance, executor: executor, timer: timer) {
                    () async throws(ActorError) -> JSONValue in try await instance.finish(saving)
                }
            case nil:
                // The ticket keeps this connection's actions in the order they arrived.
                let ticket = instance.ticket()
                run(reply, instance: instance, executor: executor, timer: timer) {
                    () async throws(ActorError) -> JSONValue in
                    try await instance.perform(
                        name, args: args, connection: connection, ticket: ticket, traceParent: traceParent)
                }
            }
        }
    }

    /// Where an action's answer goes: its `ActionResponse` or `Error` frame, written within the
    /// connection's limits, after which its pending bytes are released.
    private struct Reply: Sendable {
        let id: UInt64
        let transport: any MessageTransport
        let maxFrameSize: Int
        let budget: OutboundBudget
        let tracker: ConnectionTracker
        let bytes: Int

        /// Writes the answer for `outcome` and releases the action's bytes (a normal close
        /// waits for them).
        func send(_ outcome: Result<JSONValue, ActorError>) {
            defer { tracker.release(bytes: bytes) }
            let reply: ServerMessage
            switch outcome {
            case .success(let output): reply = .actionResponse(id: id, output: output)
            case .failure(let error): reply = .error(error, actionId: id)
            }
            var frame = RivetMessageCodec.frame(reply)
            if frame.count > maxFrameSize {
                // Too large for the peer to read: that action gets the reason instead, and the
                // connection goes on.
                let error = ActorBroadcaster.outgoingTooLong(frame.count, limit: maxFrameSize, what: "the answer")
                frame = RivetMessageCodec.frame(ServerMessage.error(error, actionId: id))
            }
            if !budget.reserve(frame.count, on: transport) {
                // The peer sent more requests in one read than the answers it may be owed: those
                // past the budget get the reason, not their answer.
                let error = ActorError(
                    .connectionOutboundFull,
                    "the connection is owed \(budget.limit) bytes of answers it has not read",
                    metadata: ["limit": .integer(Int64(budget.limit))])
                frame = RivetMessageCodec.frame(ServerMessage.error(error, actionId: id))
            }
            _ = try? transport.enqueue(.text(utf8: frame))
        }

        /// Writes the timeout's `Error` frame, the action's answer when its deadline passes first.
        func sendTimeout() {
            let frame = RivetMessageCodec.frame(ServerMessage.error(ActionDeadline.timedOut, actionId: id))
            _ = try? transport.enqueue(.text(utf8: frame))
        }
    }

    /// Runs an action's `operation` in a task of its own, started at once on the calling thread,
    /// and answers it through `reply`, or with the timeout's error if `actionTimeout` passes
    /// first (the task is then cancelled and its own answer dropped; the connection goes on).
    private static func run(
        _ reply: Reply, instance: ActorInstance, executor: (any TaskExecutor)?, timer: DeadlineTimer,
        _ operation: nonisolated(nonsending) @escaping @Sendable () async throws(ActorError) -> JSONValue
    ) {
        let arrived = ContinuousClock.now
        let deadline = ActionDeadline { reply.sendTimeout() }
        let task = ImmediateTask.start(preferring: executor) {
            let outcome: Result<JSONValue, ActorError>
            do throws(ActorError) {
                outcome = .success(try await operation())
            } catch {
                outcome = .failure(error)
            }
            // The answer itself travels in the frame below; the deadline only learns it came.
            guard deadline.settle(.success(.null)) else {
                reply.tracker.release(bytes: reply.bytes)
                return
            }
            reply.send(outcome)
        }
        // Armed only when the action's task suspended (an action answered at once has no time to
        // exceed), measured from its arrival.
        deadline.watch(until: arrived.advanced(by: instance.actionTimeout), on: timer) { task.cancel() }
    }

    /// Stops reading a connection and has it closed with `error` (by the task serving it).
    private static func stop(_ tracker: ConnectionTracker, with error: ActorError) {
        tracker.stopReading()
        tracker.requestClose(error)
    }

    /// Opens a connection: resolves its actor (holding it), reads its parameters and admits
    /// it; the caller releases the hold when the connection has gone.
    private func open(
        _ transport: any MessageTransport, request: WebSocketUpgradeRequest, tracker: ConnectionTracker
    ) async throws(ActorError)
        -> (ActorInstance, ActorConn)
    {
        guard let target = try GatewayTarget.parse(path: request.path, query: request.query) else {
            throw ActorError(.requestNotFound, "not a gateway path")
        }
        try authorize([target.token])
        let params = try Self.params(subprotocols: request.offeredSubprotocols, checkEncoding: true)
        let instance = try await enteredInstance(for: target)
        let info = ActorConnectionInfo(
            id: nextConnectionId(), actorId: instance.record.id, actorName: instance.record.name,
            key: instance.record.key, namespace: instance.record.namespace, params: params)
        do throws(ActorError) {
            let connection = try await instance.connect(
                info,
                deliver: { frame in _ = try? transport.enqueue(.text(frame)) },
                // The task serving the connection closes it.
                close: { reason in tracker.requestClose(.normal(reason: reason)) })
            return (instance, connection)
        } catch {
            instance.leave()
            throw error
        }
    }

    /// Closes a connection with RivetKit's reason text for `error`: `group.code`.
    static func close(_ transport: any MessageTransport, with error: ActorError) async {
        await transport.close(code: .internalError, reason: ActorCloseReason(group: error.group, code: error.code).description)
    }
}
