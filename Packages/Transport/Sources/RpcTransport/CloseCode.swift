/// A WebSocket close status code (RFC 6455, section 7.4).
///
/// Codes 1000–2999 are defined by the protocol and its extensions, 3000–3999 are registered for
/// libraries and frameworks (Cap'n Web closes with 3000 on a fatal error), 4000–4999 are private.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public var rawValue: UInt16

    /// Creates a close code from its number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Creates a close code from its number.
    public init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: normal closure.
    public static let normal = CloseCode(1000)
    /// 1001: the endpoint is going away (server shutting down, page navigating away).
    public static let goingAway = CloseCode(1001)
    /// 1002: protocol error.
    public static let protocolError = CloseCode(1002)
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData = CloseCode(1003)
    /// 1005: no status code was present (never sent on the wire).
    public static let noStatus = CloseCode(1005)
    /// 1006: the connection closed without a close frame (never sent on the wire).
    public static let abnormal = CloseCode(1006)
    /// 1007: data inconsistent with the message type, such as invalid UTF-8 in a text message.
    public static let invalidPayload = CloseCode(1007)
    /// 1008: a message violates the endpoint's policy.
    public static let policyViolation = CloseCode(1008)
    /// 1009: a message is too big to process.
    public static let messageTooBig = CloseCode(1009)
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension = CloseCode(1010)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = CloseCode(1011)
    /// 3000: the code Cap'n Web uses when it ends a session because of an error.
    public static let applicationError = CloseCode(3000)

    /// Whether an endpoint may send this code in a close frame (RFC 6455, section 7.4.1).
    public var isSendable: Bool {
        switch rawValue {
        case 1000 ... 1003, 1007 ... 1011, 3000 ... 4999: true
        default: false
        }
    }

    /// The number.
    public var description: String { String(rawValue) }
}
