import RpcTransport

/// The permessage-deflate part of the WebSocket opening handshake (RFC 7692, section 7.1).
///
/// A client sends ``clientOffer(for:)`` as its `Sec-WebSocket-Extensions` request header and,
/// once the response arrives, calls ``clientAgreement(responseHeaderValues:offer:)``: it returns
/// the parameters to compress with, `nil` when the server declined, or throws when the response
/// breaks the protocol, in which case the handshake fails.
///
/// A server calls ``serverAgreement(offerHeaderValues:configuration:)`` with the request's
/// `Sec-WebSocket-Extensions` values. It accepts the first acceptable offer, skipping other
/// extensions and offers that are malformed, break RFC 7692 or cannot be honoured, and returns
/// the response header value together with the agreed parameters; `nil` means no compression.
enum PerMessageDeflateNegotiation {
    /// The result of a server accepting an offer.
    typealias ServerAgreement = (responseHeaderValue: String, agreed: AgreedDeflateParameters)

    // MARK: Client

    /// The offer a client with `configuration` sends.
    ///
    /// `client_max_window_bits` is always included, without a value when the client sets no limit,
    /// so that a server may ask for a smaller window.
    static func clientOffer(for configuration: PerMessageDeflateConfiguration) -> PerMessageDeflateParameters {
        PerMessageDeflateParameters(
            serverNoContextTakeover: configuration.serverNoContextTakeover,
            clientNoContextTakeover: configuration.clientNoContextTakeover,
            serverMaxWindowBits: configuration.effectiveServerMaxWindowBits,
            clientMaxWindowBits: configuration.effectiveClientMaxWindowBits.map { .value($0) } ?? .withoutValue
        )
    }

    /// The `Sec-WebSocket-Extensions` request header value for a client with `configuration`.
    static func clientOfferHeaderValue(for configuration: PerMessageDeflateConfiguration) -> String {
        clientOffer(for: configuration).headerValue
    }

    /// Checks the server's `Sec-WebSocket-Extensions` response values against the client's offer.
    ///
    /// - Parameters:
    ///   - responseHeaderValues: Every value of the response header, in order; empty when absent.
    ///   - offer: What the client offered, from ``clientOffer(for:)``.
    /// - Returns: This client's parameters, or `nil` when the server did not accept the extension.
    /// - Throws: ``TransportError`` with code `handshakeFailed` when the response is malformed,
    ///   names an extension that was not offered or accepts permessage-deflate more than once, has
    ///   an unknown, duplicated or invalid parameter, or does not honour the offer: it omits a
    ///   requested `server_no_context_takeover` or `server_max_window_bits`, sets a larger
    ///   `server_max_window_bits` than requested, or sets `client_max_window_bits` when it was not
    ///   offered or larger than offered.
    static func clientAgreement(
        responseHeaderValues: [String],
        offer: PerMessageDeflateParameters
    ) throws(TransportError) -> AgreedDeflateParameters? {
        var accepted: PerMessageDeflateParameters?
        for element in WebSocketExtensionListParser.parse(responseHeaderValues) {
            guard let element else {
                throw handshakeFailure("the Sec-WebSocket-Extensions response header is malformed")
            }
            guard element.hasName(PerMessageDeflateParameters.extensionName) else {
                throw handshakeFailure("the server accepted the extension \(element.name), which was not offered")
            }
            guard accepted == nil else {
                throw handshakeFailure("the server accepted permessage-deflate more than once")
            }
            accepted = try PerMessageDeflateParameters(element: element, role: .response)
        }
        guard let response = accepted else { return nil }

        if offer.serverNoContextTakeover, !response.serverNoContextTakeover {
            throw handshakeFailure("the server ignored the requested server_no_context_takeover")
        }
        if let requested = offer.serverMaxWindowBits {
            guard let granted = response.serverMaxWindowBits else {
                throw handshakeFailure("the server ignored the requested server_max_window_bits=\(requested)")
            }
            guard granted <= requested else {
                throw handshakeFailure(
                    "the server set server_max_window_bits=\(granted), more than the requested \(requested)"
                )
            }
        }
        var sendWindowBits = offer.clientMaxWindowBits.bits ?? DeflateWindowBits.maximum
        if let limit = response.clientMaxWindowBits.bits {
            guard offer.clientMaxWindowBits != .absent else {
                throw handshakeFailure("the server set client_max_window_bits, which was not offered")
            }
            guard limit <= sendWindowBits else {
                throw handshakeFailure(
                    "the server set client_max_window_bits=\(limit), more than the offered \(sendWindowBits)"
                )
            }
            sendWindowBits = limit
        }
        return AgreedDeflateParameters(
            sendWindowBits: sendWindowBits,
            sendNoContextTakeover: offer.clientNoContextTakeover || response.clientNoContextTakeover,
            receiveWindowBits: response.serverMaxWindowBits ?? DeflateWindowBits.maximum,
            receiveNoContextTakeover: response.serverNoContextTakeover
        )
    }

    // MARK: Server

    /// Chooses the first acceptable permessage-deflate offer among the request's header values.
    ///
    /// - Parameters:
    ///   - offerHeaderValues: Every value of the request's `Sec-WebSocket-Extensions` header.
    ///   - configuration: The server's requirements.
    /// - Returns: The response header value and this server's parameters, or `nil` when no offer
    ///   is acceptable and the connection goes on without compression.
    static func serverAgreement(
        offerHeaderValues: [String],
        configuration: PerMessageDeflateConfiguration
    ) -> ServerAgreement? {
        for element in WebSocketExtensionListParser.parse(offerHeaderValues) {
            guard let element, element.hasName(PerMessageDeflateParameters.extensionName) else { continue }
            guard let offer = try? PerMessageDeflateParameters(element: element, role: .offer) else { continue }
            guard let response = serverResponse(to: offer, configuration: configuration) else { continue }
            let agreed = AgreedDeflateParameters(
                sendWindowBits: response.serverMaxWindowBits ?? DeflateWindowBits.maximum,
                sendNoContextTakeover: response.serverNoContextTakeover,
                receiveWindowBits: response.clientMaxWindowBits.bits ?? DeflateWindowBits.maximum,
                receiveNoContextTakeover: response.clientNoContextTakeover
            )
            return (response.headerValue, agreed)
        }
        return nil
    }

    /// The server's response to one valid offer, or `nil` when the server cannot accept it.
    ///
    /// - The response has `server_no_context_takeover` when the client asked for it or the server
    ///   is configured with it, and `client_no_context_takeover` when the client announced it or
    ///   the server requires it.
    /// - `server_max_window_bits` is the smaller of the client's request and the server's limit.
    /// - `client_max_window_bits` is the smaller of the client's announced value and the server's
    ///   limit. Without `client_max_window_bits` in the offer, a server that limits the client's
    ///   window below 15 declines the offer.
    static func serverResponse(
        to offer: PerMessageDeflateParameters,
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        var response = PerMessageDeflateParameters()
        response.serverNoContextTakeover = offer.serverNoContextTakeover || configuration.serverNoContextTakeover
        response.clientNoContextTakeover = offer.clientNoContextTakeover || configuration.clientNoContextTakeover
        response.serverMaxWindowBits = [offer.serverMaxWindowBits, configuration.effectiveServerMaxWindowBits]
            .compactMap { $0 }
            .min()
        let clientLimit = configuration.effectiveClientMaxWindowBits
        switch offer.clientMaxWindowBits {
        case .absent:
            if let clientLimit, clientLimit < DeflateWindowBits.maximum { return nil }
        case .withoutValue:
            response.clientMaxWindowBits = clientLimit.map { .value($0) } ?? .absent
        case .value(let announced):
            response.clientMaxWindowBits = .value(min(announced, clientLimit ?? DeflateWindowBits.maximum))
        }
        return response
    }

    /// The error for a response the client cannot accept.
    private static func handshakeFailure(_ reason: String) -> TransportError {
        TransportError(code: .handshakeFailed, message: "permessage-deflate: \(reason)")
    }
}
