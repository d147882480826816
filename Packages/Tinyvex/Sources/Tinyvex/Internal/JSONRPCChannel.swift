import RpcDo
import RpcTransport
import RpcWire
import Synchronization

/// JSON-RPC 2.0 requests over one supervised connection (``ReconnectingConnection``):
/// the client's one way to the server.
///
/// Each request gets a numeric id and its answer is matched by that id; the peer's
/// notifications go to a handler. Calls run through RpcDo's ``RpcDo/ManagedChannel``: one
/// timeout per attempt (waiting for the ready link included), and its one retry loop, which
/// sends a request again after a timeout or a lost link when it never reached the transport or
/// when it is marked idempotent. The protocol's ready handshake runs on each new link before
/// it is ready (``request(on:_:params:timeout:)``: straight to that link, never held), and
/// messages that need no answer go straight to a link (``send(on:_:params:)``).
///
/// ```swift
/// let channel = JSONRPCChannel(configuration: configuration, settings: settings, factory: open,
///     handshake: { channel, link in _ = try await channel.request(on: link, "hello", timeout: .seconds(5)) },
///     onNotification: { method, params in print(method) })
/// try await channel.connection.start()
/// let sum = try await channel.request("add", params: .positional([1, 2]))
/// ```
final class JSONRPCChannel: Sendable {
    /// The ready handshake: runs on each new link (see ``ReconnectingConnection/Hooks/handshake``).
    typealias Handshake = @Sendable (JSONRPCChannel, ReconnectingConnection.Link) async throws -> Void

    /// The supervised connection the requests travel on (its states and lifecycle).
    let connection: ReconnectingConnection
    /// Timeouts, retries and the pending answers.
    private let calls: ManagedChannel<ManagedConnectionError>
    private let codec = JSONRPCCodec()

    /// Creates a channel; call `connection.start()`.
    ///
    /// - Parameters:
    ///   - configuration: The connection's settings (reconnect policy, timeouts, keepalive,
    ///     offline limit).
    ///   - settings: The rules around each request (timeout, retries, backoff).
    ///   - factory: Opens a transport.
    ///   - handshake: The protocol's ready handshake on each new link; `nil` for none.
    ///   - ready: Told of each link once it is ready, before waiting requests go on.
    ///   - onNotification: Receives the peer's notifications (method and parameters), on the
    ///     transport's thread, in order.
    init(
        configuration: ReconnectingConnectionConfiguration,
        settings: ManagedChannel<ManagedConnectionError>.Settings,
        factory: @escaping ReconnectingConnection.TransportFactory,
        handshake: Handshake? = nil,
        ready: (@Sendable (JSONRPCChannel, ReconnectingConnection.Link) -> Void)? = nil,
        onNotification: @escaping @Sendable (String, JSONRPCParams?) -> Void
    ) {
        // The connection's hooks and handler reach the channel through the relay, which does
        // not hold it (the channel holds the connection, which holds them).
        let relay = Relay()
        var hooks = ReconnectingConnection.Hooks()
        if let handshake {
            hooks.handshake = { link in
                guard let channel = relay.channel else { return }
                try await handshake(channel, link)
            }
        }
        if let ready {
            hooks.ready = { link in
                guard let channel = relay.channel else { return }
                ready(channel, link)
            }
        }
        let connection = ReconnectingConnection(
            configuration: configuration, factory: factory,
            handler: .messages { message in
                relay.channel?.receive(message, onNotification: onNotification)
            },
            hooks: hooks)
        self.connection = connection
        self.calls = ManagedChannel(connection: connection, settings: settings)
        relay.set(self)
    }

    /// Lets the connection's hooks and handler reach the channel without holding it.
    private final class Relay: Sendable {
        private let reach = Mutex<(@Sendable () -> JSONRPCChannel?)?>(nil)

        func set(_ channel: JSONRPCChannel) {
            reach.withLock { $0 = { [weak channel] in channel } }
        }

        var channel: JSONRPCChannel? {
            reach.withLock { $0 }?()
        }
    }

    /// Sends a request once the connection is ready and returns its result.
    ///
    /// - Parameters:
    ///   - method: The method name.
    ///   - params: The parameters, if any.
    ///   - timeout: How long one attempt may take (waiting for the connection included); `nil`
    ///     for the settings' request timeout.
    ///   - idempotent: Whether the request may be sent again after it reached a link that was
    ///     lost (or timed out).
    /// - Throws: ``RpcDo/ManagedConnectionError``: `remote` (with the peer's error object) when
    ///   the peer answers with an error, `timeout`, `connectionLost`, `notConnected`,
    ///   `offlineQueueFull`, `closed`, `cancelled`.
    func request(
        _ method: String, params: JSONRPCParams? = nil, timeout: Duration? = nil, idempotent: Bool = false
    ) async throws(ManagedConnectionError) -> JSONValue {
        let codec = self.codec
        return try await calls.request(calls.call(method, timeout: timeout, isIdempotent: idempotent)) { id throws(ManagedConnectionError) in
            try Self.encode(codec, .request(id: .number(Int64(truncatingIfNeeded: id)), method: method, params: params))
        }
    }

    /// Sends a request on `link` now, without waiting for the link to be ready and without
    /// retries (for the ready handshake), and returns its result.
    ///
    /// - Throws: ``RpcDo/ManagedConnectionError`` as ``request(_:params:timeout:idempotent:)``.
    func request(
        on link: ReconnectingConnection.Link, _ method: String, params: JSONRPCParams? = nil, timeout: Duration
    ) async throws(ManagedConnectionError) -> JSONValue {
        let codec = self.codec
        return try await calls.request(on: link, timeout: timeout) { id throws(ManagedConnectionError) in
            try Self.encode(codec, .request(id: .number(Int64(truncatingIfNeeded: id)), method: method, params: params))
        }
    }

    /// Writes a request on `link` now and does not wait for its answer (which is dropped when it
    /// comes); the server handles a connection's requests in order, so whatever is sent on the
    /// link afterwards is handled after it.
    ///
    /// - Throws: ``RpcDo/ManagedConnectionError`` `invalidRequest` when it cannot be encoded,
    ///   `notConnected` when the link is closed.
    func send(on link: ReconnectingConnection.Link, _ method: String, params: JSONRPCParams? = nil) throws(ManagedConnectionError) {
        let id = Int64(truncatingIfNeeded: calls.nextID())
        let message = try Self.encode(codec, .request(id: .number(id), method: method, params: params))
        do {
            try link.transport.enqueue(message)
        } catch {
            throw ManagedConnectionError(.notConnected, "the request could not be sent: \(error)")
        }
    }

    /// How many requests wait for their answer.
    var pendingCount: Int { calls.pendingCount }

    /// Matches answers to their requests and passes notifications on; anything else (a message
    /// that is not JSON-RPC, a request from the server, an answer without a numeric id) is
    /// dropped: the server sends none.
    private func receive(_ message: TransportMessage, onNotification: @Sendable (String, JSONRPCParams?) -> Void) {
        guard let packet = try? codec.decode(message.bytes) else { return }
        for message in packet.messages {
            switch message {
            case .success(.number(let id), let result):
                calls.answer(UInt64(truncatingIfNeeded: id), with: .success(result))
            case .failure(.number(let id), let error):
                calls.answer(UInt64(truncatingIfNeeded: id), with: .failure(ManagedConnectionError(.remote, error.message, remote: error)))
            case .notification(let method, let params):
                onNotification(method, params)
            case .request, .success, .failure:
                continue
            }
        }
    }

    private static func encode(_ codec: JSONRPCCodec, _ message: JSONRPCMessage) throws(ManagedConnectionError) -> TransportMessage {
        do {
            return .text(utf8: try codec.encode(message))
        } catch {
            throw ManagedConnectionError(.invalidRequest, "\(error)")
        }
    }
}
