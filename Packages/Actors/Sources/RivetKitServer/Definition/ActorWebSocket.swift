public import RivetKit
import RpcTransport

/// The socket an actor's ``ActorDefinition/onWebSocket(_:)`` handler is given: a client's
/// `handle.webSocket(path)`, accepted with the `rivet` subprotocol.
///
/// The handler reads ``messages`` (which ends when the socket closes, from either side), sends
/// with ``send(text:)``/``send(binary:)`` and may close it with ``close(code:reason:)``. The
/// socket stays open after the handler returns, until one side closes it; its connection
/// (``ActorConn``) lasts as long as the socket.
///
/// ```swift
/// .onWebSocket { context, socket in
///     for await message in socket.messages {
///         if case .text(let text) = message { try await socket.send(text: text) }
///     }
/// }
/// ```
public final class ActorWebSocket: Sendable {
    /// The messages the client sends, in order; the sequence ends when the socket closes.
    public let messages: AsyncStream<ActorWebSocketMessage>
    /// The upgrade request (its path not shortened: `/websocket/…`).
    public let request: ActorRequest
    private let transport: any MessageTransport
    private let maxMessageSize: Int

    init(
        transport: any MessageTransport, request: ActorRequest, messages: AsyncStream<ActorWebSocketMessage>,
        maxMessageSize: Int
    ) {
        self.transport = transport
        self.request = request
        self.messages = messages
        self.maxMessageSize = maxMessageSize
    }

    /// Sends a text message. A message to a closed socket is dropped.
    ///
    /// - Throws: ``ActorError`` `message.outgoing_too_long` when the text is over the
    ///   server's message size limit.
    public func send(text: String) async throws(ActorError) {
        try await send(TransportMessage(kind: .text, bytes: Array(text.utf8)))
    }

    /// Sends a binary message. A message to a closed socket is dropped.
    ///
    /// - Throws: ``ActorError`` `message.outgoing_too_long` when the bytes are over
    ///   the server's message size limit.
    public func send(binary: [UInt8]) async throws(ActorError) {
        try await send(TransportMessage(kind: .binary, bytes: binary))
    }

    private func send(_ message: TransportMessage) async throws(ActorError) {
        guard message.bytes.count <= maxMessageSize else {
            throw ActorError(
                .messageOutgoingTooLong,
                "the message is \(message.bytes.count) bytes, over the limit of \(maxMessageSize)",
                metadata: ["limit": .integer(Int64(maxMessageSize))])
        }
        try? await transport.send(message)
    }

    /// Closes the socket with `code` (1000 by default) and `reason` (cut to the 123 bytes a
    /// close frame carries); ``messages`` then ends.
    public func close(code: UInt16 = 1000, reason: String = "") async {
        await transport.close(code: CloseCode(code), reason: reason)
    }
}
