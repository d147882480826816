import RpcTransport

/// The payload of a WebSocket close frame: an optional two-byte code and a UTF-8 reason
/// (RFC 6455, section 5.5.1).
enum WebSocketClosePayload {
    /// The longest reason that fits a control frame after the two-byte code.
    static let maximumReasonBytes = 123

    /// `reason` cut to at most ``maximumReasonBytes`` UTF-8 bytes, never inside a character.
    static func truncatedReason(_ reason: String) -> String {
        guard reason.utf8.count > maximumReasonBytes else { return reason }
        var result = ""
        var used = 0
        for character in reason {
            let size = character.utf8.count
            guard used + size <= maximumReasonBytes else { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// The payload announcing `code` and `reason`; empty when the code may not be sent.
    static func encode(code: CloseCode, reason: String) -> [UInt8] {
        guard code.isSendable else { return [] }
        var bytes: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        bytes.append(contentsOf: truncatedReason(reason).utf8)
        return bytes
    }

    /// A close frame as received: the code (``CloseCode/noStatus`` when absent) and reason.
    struct Received {
        /// The peer's code, or ``CloseCode/noStatus`` when it sent none.
        var code: CloseCode
        /// The peer's reason.
        var reason: String
    }

    /// Whether a peer may use `code` in a close frame: the protocol's codes other than the
    /// reserved 1004–1006 and 1015, and the registered and private ranges.
    static func isAcceptable(_ code: UInt16) -> Bool {
        switch code {
        case 1000 ... 1003, 1007 ... 1014, 3000 ... 4999: true
        default: false
        }
    }

    /// Parses a received close payload.
    ///
    /// - Throws: ``TransportError`` with ``TransportError/Code/protocolViolation`` (close code
    ///   1002) for a one-byte payload or a code a peer may not send, and
    ///   ``TransportError/Code/invalidUTF8`` (1007) for a reason that is not UTF-8.
    static func parse(_ bytes: [UInt8]) throws(TransportError) -> Received {
        if bytes.isEmpty {
            return Received(code: .noStatus, reason: "")
        }
        guard bytes.count >= 2 else {
            throw TransportError(
                code: .protocolViolation, message: "close frame with a one-byte payload", closeCode: .protocolError)
        }
        let raw = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        guard isAcceptable(raw) else {
            throw TransportError(
                code: .protocolViolation, message: "close frame with the invalid code \(raw)", closeCode: .protocolError)
        }
        let reasonBytes = bytes[2...]
        let valid = reasonBytes.withUnsafeBytes { UTF8Validation.isValid($0) }
        guard valid else {
            throw TransportError(
                code: .invalidUTF8, message: "close reason is not valid UTF-8", closeCode: .invalidPayload)
        }
        return Received(code: CloseCode(raw), reason: String(decoding: reasonBytes, as: UTF8.self))
    }
}
