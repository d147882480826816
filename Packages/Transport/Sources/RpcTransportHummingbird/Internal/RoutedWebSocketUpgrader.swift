import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import RpcTransportNIO

/// The WebSocket upgrader of ``TransportUpgradeChannel``: it asks the application's router,
/// middleware included, about each opening handshake. When a route accepted it
/// (``Hummingbird/Request/upgrade(_:configuration:onConnection:)``), the connection becomes our
/// ``RpcTransportNIO/WebSocketTransport`` through ``RpcTransportNIO/AdoptedWebSocketUpgrader``;
/// otherwise the router's answer is kept in `refusal` for the channel to send, and NIO goes on
/// without upgrading.
///
/// One per connection; NIO calls it on the connection's event loop.
final class RoutedWebSocketUpgrader<Responder: HTTPResponder>: NIOTypedHTTPServerProtocolUpgrader, Sendable
where Responder.Context: RequestContext & InitializableFromSource<ApplicationRequestContextSource> {
    typealias UpgradeResult = TransportUpgradeOutcome

    /// An upgrade a route accepted: NIO's handshake checks and our transport, and the route's
    /// handler of the connection.
    private typealias Accepted = (upgrader: AdoptedWebSocketUpgrader, onConnection: @Sendable (WebSocketTransport) async -> Void)

    /// Why NIO does not upgrade: the router did not accept; its answer is in `refusal`.
    private struct NotAccepted: Error {}

    let supportedProtocol = "websocket"
    let requiredUpgradeHeaders: [String] = []

    private let responder: Responder
    private let logger: Logger
    /// The router's answer to a handshake it did not accept.
    let refusal: NIOLoopBoundBox<Response?>
    /// The upgrade a route accepted, with the handler of its connection.
    private let accepted: NIOLoopBoundBox<Accepted?>

    init(responder: Responder, eventLoop: any EventLoop, logger: Logger) {
        self.responder = responder
        self.logger = logger
        self.refusal = NIOLoopBoundBox(nil, eventLoop: eventLoop)
        self.accepted = NIOLoopBoundBox(nil, eventLoop: eventLoop)
    }

    func buildUpgradeResponse(
        channel: any Channel,
        upgradeRequest: HTTPRequestHead,
        initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        let request: Request
        do {
            request = Request(
                head: try HTTPRequest(upgradeRequest, secure: false, splitCookie: false), body: RequestBody(buffer: ByteBuffer()))
        } catch {
            refusal.value = Response(status: .badRequest)
            return channel.eventLoop.makeFailedFuture(error)
        }
        let answer = channel.eventLoop.makePromise(of: (Response, RouteUpgrade.Acceptance?).self)
        let responder = self.responder
        let logger = self.logger
        answer.completeWithTask {
            let context = Responder.Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            let upgrade = RouteUpgrade()
            let response: Response
            do {
                response = try await RouteUpgrade.$current.withValue(upgrade) {
                    try await responder.respond(to: request, context: context)
                }
            } catch let error as any HTTPResponseError {
                response = (try? error.response(from: request, context: context)) ?? Response(status: .internalServerError)
            } catch {
                logger.debug("the router failed on a WebSocket opening handshake", metadata: ["error": "\(error)"])
                response = Response(status: .internalServerError)
            }
            return (response, upgrade.acceptance)
        }
        return answer.futureResult.flatMap { response, acceptance in
            guard response.status == .switchingProtocols, let acceptance else {
                self.refusal.value = response
                return channel.eventLoop.makeFailedFuture(NotAccepted())
            }
            let upgrader = AdoptedWebSocketUpgrader(
                configuration: acceptance.configuration, subprotocol: acceptance.subprotocol, eventLoop: channel.eventLoop)
            self.accepted.value = (upgrader, acceptance.onConnection)
            // Answered when NIO cannot accept the handshake after all.
            self.refusal.value = Response(status: .badRequest)
            return upgrader.buildUpgradeResponse(
                channel: channel, upgradeRequest: upgradeRequest, initialResponseHeaders: initialResponseHeaders
            ).map { headers in
                self.refusal.value = nil
                return headers
            }
        }
    }

    func upgrade(channel: any Channel, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<TransportUpgradeOutcome> {
        guard let accepted = accepted.value else {
            return channel.eventLoop.makeFailedFuture(NotAccepted())
        }
        let onConnection = accepted.onConnection
        return accepted.upgrader.adopt(channel).map { transport in
            .webSocket(transport, onConnection)
        }
    }
}
