import NIOCore
import NIOHTTP1
import RpcTransport

/// The state of one client opening handshake, shared by the upgrader (which sees a 101 answer)
/// and the handshake handler (which sees everything else). It completes the connect promise
/// exactly once. Lives on the channel's event loop.
final class WebSocketClientHandshake {
    /// The request head, before the upgrade headers are added.
    let requestHead: HTTPRequestHead
    /// The subprotocols offered.
    let offeredSubprotocols: [String]
    /// The client's permessage-deflate settings, when compression is offered.
    let deflate: PerMessageDeflateConfiguration?
    /// The permessage-deflate offer sent, when compression is offered.
    let deflateOffer: PerMessageDeflateParameters?
    /// The settings of the connection once it is open.
    let settings: WebSocketConnectionSettings
    /// How long the handshake may take once the channel is active.
    let timeout: TimeAmount
    private let promise: EventLoopPromise<WebSocketTransport>
    private var timer: Scheduled<Void>?
    private var completed = false

    /// Why the upgrader refused a 101 answer, for the error that follows.
    var refusal: TransportError?
    /// The subprotocol the server picked.
    var agreedSubprotocol: String?
    /// The compression parameters agreed.
    var agreedDeflate: AgreedDeflateParameters?

    init(
        requestHead: HTTPRequestHead,
        configuration: WebSocketClientConfiguration,
        promise: EventLoopPromise<WebSocketTransport>
    ) {
        self.requestHead = requestHead
        self.offeredSubprotocols = configuration.subprotocols
        self.deflate = configuration.deflate
        self.deflateOffer = configuration.deflate.map(PerMessageDeflateNegotiation.clientOffer(for:))
        self.settings = configuration.connectionSettings
        self.timeout = TimeAmount(configuration.handshakeTimeout)
        self.promise = promise
    }

    /// Whether the promise is still open.
    var isPending: Bool { !completed }

    /// Starts the handshake timer.
    func startTimer(on channel: any Channel) {
        guard timer == nil, !completed else { return }
        timer = channel.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            fail(
                TransportError(code: .handshakeTimeout, message: "the opening handshake did not finish in time"),
                closing: channel
            )
        }
    }

    /// Completes the connect with an open transport.
    func succeed(_ transport: WebSocketTransport) {
        guard !completed else { return }
        completed = true
        timer?.cancel()
        promise.succeed(transport)
    }

    /// Fails the connect and closes the channel.
    func fail(_ error: TransportError, closing channel: (any Channel)?) {
        guard !completed else { return }
        completed = true
        timer?.cancel()
        promise.fail(error)
        channel?.close(promise: nil)
    }

    /// Checks a 101 answer: subprotocol and extensions. Records the agreement, or the refusal.
    func accept(_ response: HTTPResponseHead) -> Bool {
        let protocols = response.headers["Sec-WebSocket-Protocol"]
        if let chosen = protocols.first {
            let name = chosen.trimmingASCIISpaces()
            guard protocols.count == 1, !name.contains(","), offeredSubprotocols.contains(name) else {
                refusal = TransportError(
                    code: .handshakeFailed,
                    message: "the server chose the subprotocol \(chosen), which was not offered"
                )
                return false
            }
            agreedSubprotocol = name
        }
        let extensions = response.headers["Sec-WebSocket-Extensions"]
        if let deflateOffer {
            do {
                agreedDeflate = try PerMessageDeflateNegotiation.clientAgreement(
                    responseHeaderValues: extensions, offer: deflateOffer)
            } catch {
                refusal = error
                return false
            }
        } else if !extensions.isEmpty {
            refusal = TransportError(
                code: .handshakeFailed,
                message: "the server accepted extensions that were not offered: \(extensions.joined(separator: ", "))"
            )
            return false
        }
        return true
    }
}
