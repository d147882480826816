import RpcTransport

/// The parameters of one permessage-deflate offer or response (RFC 7692, section 7.1).
///
/// Built from a parsed ``WebSocketExtensionElement`` by ``init(element:role:)``, which applies
/// the rules of RFC 7692, section 7: every parameter may appear at most once, unknown parameters
/// are refused, the `*_no_context_takeover` parameters take no value, and window sizes are decimal
/// integers from 8 to 15 without leading zeroes. `client_max_window_bits` may come without a value
/// in an offer only. Parameter names are compared ignoring ASCII case.
struct PerMessageDeflateParameters: Hashable, Sendable {
    /// Where a parameter list comes from, which decides what it may contain.
    enum Role: Hashable, Sendable {
        /// A client's offer, sent in the upgrade request.
        case offer
        /// A server's answer to one offer, sent in the upgrade response.
        case response
    }

    /// The state of the `client_max_window_bits` parameter.
    enum ClientWindowBits: Hashable, Sendable {
        /// Not present.
        case absent
        /// Present without a value: the client can honour a limit (offers only).
        case withoutValue
        /// Present with a value from 8 to 15.
        case value(Int)

        /// The value, if there is one.
        var bits: Int? {
            if case .value(let bits) = self { bits } else { nil }
        }
    }

    /// `server_no_context_takeover`: the server resets its compressor after each message.
    var serverNoContextTakeover = false
    /// `client_no_context_takeover`: the client resets its compressor after each message.
    var clientNoContextTakeover = false
    /// `server_max_window_bits`: the largest window the server compresses with.
    var serverMaxWindowBits: Int?
    /// `client_max_window_bits`: the largest window the client compresses with.
    var clientMaxWindowBits = ClientWindowBits.absent

    /// The registered extension name.
    static let extensionName = "permessage-deflate"

    /// Parameters with nothing set: the offer or response `permessage-deflate` on its own.
    init() {}

    /// Creates parameters with the given values.
    init(
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int? = nil,
        clientMaxWindowBits: ClientWindowBits = .absent
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// Validates the parameters of a `permessage-deflate` element.
    ///
    /// - Throws: ``TransportError`` with code `handshakeFailed` naming the first broken rule.
    init(element: WebSocketExtensionElement, role: Role) throws(TransportError) {
        var seen: Set<String> = []
        for parameter in element.parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else {
                throw Self.invalid("the parameter \(name) appears more than once")
            }
            switch name {
            case "server_no_context_takeover":
                guard parameter.value == nil else { throw Self.invalid("\(name) takes no value") }
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard parameter.value == nil else { throw Self.invalid("\(name) takes no value") }
                clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let text = parameter.value, let bits = DeflateWindowBits.parse(text[...]) else {
                    throw Self.invalid("\(name) needs a value from 8 to 15")
                }
                serverMaxWindowBits = bits
            case "client_max_window_bits":
                if let text = parameter.value {
                    guard let bits = DeflateWindowBits.parse(text[...]) else {
                        throw Self.invalid("\(name) needs a value from 8 to 15")
                    }
                    clientMaxWindowBits = .value(bits)
                } else {
                    guard role == .offer else { throw Self.invalid("\(name) needs a value in a response") }
                    clientMaxWindowBits = .withoutValue
                }
            default:
                throw Self.invalid("unknown parameter \(parameter.name)")
            }
        }
    }

    /// The header form, for example `permessage-deflate; client_max_window_bits=12`.
    var headerValue: String {
        var parts = [Self.extensionName]
        if serverNoContextTakeover {
            parts.append("server_no_context_takeover")
        }
        if clientNoContextTakeover {
            parts.append("client_no_context_takeover")
        }
        if let serverMaxWindowBits {
            parts.append("server_max_window_bits=\(serverMaxWindowBits)")
        }
        switch clientMaxWindowBits {
        case .absent:
            break
        case .withoutValue:
            parts.append("client_max_window_bits")
        case .value(let bits):
            parts.append("client_max_window_bits=\(bits)")
        }
        return parts.joined(separator: "; ")
    }

    /// The error for parameters that break RFC 7692.
    private static func invalid(_ reason: String) -> TransportError {
        TransportError(code: .handshakeFailed, message: "permessage-deflate: \(reason)")
    }
}
