import RivetKit
import RpcTransportNIO
import Synchronization

extension ActorServerCore {
    /// Decides about a WebSocket upgrade: gateway `…/connect` paths that offer the `rivet`
    /// subprotocol are accepted with it (RivetKit's client fails without it); others are refused.
    static func decideUpgrade(_ request: WebSocketUpgradeRequest) -> WebSocketUpgradeDecision {
        guard request.path.hasPrefix("/gateway/"), request.path.hasSuffix("/connect") else {
            return .reject(status: 404)
        }
        guard request.offeredSubprotocols.contains("rivet") else { return .reject(status: 400) }
        return .accept(subprotocol: "rivet")
    }

    /// Serves one realtime connection until it closes.
    func serve(_ transport: WebSocketTransport, request: WebSocketUpgradeRequest) async {
        let instance: ActorInstance
        let connection: ActorConnectionInfo
        do throws(ActorError) {
            (instance, connection) = try await open(transport, request: request)
        } catch {
            await Self.close(transport, with: error)
            return
        }
        _ = try? transport.enqueue(.text(RivetMessageCodec.encode(ServerMessage.initialize(
            actorId: instance.record.id, connectionId: connection.id))))
        let (events, continuation) = AsyncStream<TransportEvent>.makeStream()
        transport.start { event in
            continuation.yield(event)
            if case .closed = event { continuation.finish() }
        }
        let inFlight = InFlightCounter()
        let limit = max(configuration.maxActionsInFlightPerConnection, 1)
        await withDiscardingTaskGroup { group in
            for await event in events {
                guard case .message(let message) = event else { break }
                guard message.kind == .text else {
                    await Self.close(transport, with: .malformed("frames of the json encoding are text"))
                    break
                }
                let decoded: ClientMessage
                do throws(ActorError) {
                    decoded = try RivetMessageCodec.decodeClientMessage(utf8: message.bytes)
                } catch {
                    await Self.close(transport, with: error)
                    break
                }
                switch decoded {
                case .subscriptionRequest(let eventName, let subscribe):
                    instance.broadcaster.update(connectionId: connection.id, event: eventName, subscribe: subscribe)
                case .actionRequest(let id, let name, let args):
                    guard inFlight.increment() <= limit else {
                        inFlight.decrement()
                        let error = ActorError(
                            group: "action", code: "too_many_in_flight",
                            message: "a connection may have \(limit) actions in flight")
                        _ = try? transport.enqueue(.text(utf8: RivetMessageCodec.frame(ServerMessage.error(error, actionId: id))))
                        continue
                    }
                    // The ticket keeps this connection's actions in the order they arrived.
                    let ticket = instance.ticket()
                    group.addTask {
                        let reply: ServerMessage
                        do throws(ActorError) {
                            let output = try await instance.perform(name, args: args, connection: connection, ticket: ticket)
                            reply = .actionResponse(id: id, output: output)
                        } catch {
                            reply = .error(error, actionId: id)
                        }
                        inFlight.decrement()
                        _ = try? transport.enqueue(.text(utf8: RivetMessageCodec.frame(reply)))
                    }
                }
            }
        }
        continuation.finish()
        await instance.disconnect(connection)
    }

    private func open(_ transport: WebSocketTransport, request: WebSocketUpgradeRequest) async throws(ActorError)
        -> (ActorInstance, ActorConnectionInfo)
    {
        guard let target = try GatewayTarget.parse(path: request.path, query: request.query) else {
            throw ActorError(group: "request", code: "not_found", message: "not a gateway path")
        }
        try authorize([target.token])
        var params: JSONValue?
        for offered in request.offeredSubprotocols {
            if offered.hasPrefix("rivet_encoding."), offered != "rivet_encoding.json" {
                throw ActorError(group: "request", code: "invalid", message: "this server speaks the json encoding only")
            }
            if offered.hasPrefix("rivet_conn_params.") {
                params = try Self.params(HTTPQuery.decode(offered.dropFirst("rivet_conn_params.".count)))
            }
        }
        let instance = try await instance(for: target)
        let connection = ActorConnectionInfo(
            id: nextConnectionId(), actorId: instance.record.id, actorName: instance.record.name,
            key: instance.record.key, namespace: instance.record.namespace, params: params)
        try await instance.connect(
            connection,
            deliver: { frame in _ = try? transport.enqueue(.text(frame)) },
            close: { error in
                Task { await Self.close(transport, with: error) }
            })
        return (instance, connection)
    }

    /// Closes a connection with RivetKit's reason text for `error`: `group.code`.
    static func close(_ transport: WebSocketTransport, with error: ActorError) async {
        await transport.close(code: .internalError, reason: ActorCloseReason(group: error.group, code: error.code).description)
    }
}

/// The actions one connection has waiting or running.
final class InFlightCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more; returns the new count.
    func increment() -> Int {
        count.add(1, ordering: .relaxed).newValue
    }

    /// Counts one fewer.
    func decrement() {
        count.subtract(1, ordering: .relaxed)
    }
}
