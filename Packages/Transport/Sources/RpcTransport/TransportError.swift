/// The one error type of the Transport layer.
///
/// Every failure to connect, handshake, send, receive or answer a batch is a `TransportError`.
/// Its ``code`` is stable and safe to switch over; ``message`` is a human-readable reason.
/// Depending on the failure it also carries the WebSocket ``closeCode``, the HTTP ``httpStatus``
/// or the underlying ``cause``.
///
/// ```swift
/// do {
///     try await transport.send(.text("hello"))
/// } catch where error.code == .closed {
///     print("peer closed with", error.closeCode ?? .noStatus)
/// }
/// ```
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable, CaseIterable {
            case invalidTarget
            case connectFailed
            case connectTimeout
            case handshakeFailed
            case handshakeTimeout
            case upgradeRejected
            case tlsHandshakeFailed
            case certificateUntrusted
            case certificateExpired
            case hostnameMismatch
            case pinMismatch
            case tlsConfigurationInvalid
            case closed
            case protocolViolation
            case messageTooLarge
            case invalidUTF8
            case keepaliveTimeout
            case readTimeout
            case peerNotReading
            case httpStatus
            case requestTooLarge
            case cancelled
            case ioError
            case serverShutdown
            case notConnected
            case offlineQueueFull
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The stable string form of the code, for example `"handshakeFailed"`.
        public var rawValue: String { wrapped.rawValue }

        /// Creates a code from its stable string form; `nil` when no such code exists.
        public init?(rawValue: String) {
            guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
            self.wrapped = wrapped
        }

        /// The stable string form of the code.
        public var description: String { wrapped.rawValue }

        /// Every code, in declaration order.
        package static let all: [Code] = Wrapped.allCases.map(Code.init)

        /// The URL or target cannot be used (bad scheme, missing host, bad port).
        public static let invalidTarget = Code(.invalidTarget)
        /// The connection could not be established (refused, unreachable, no such socket).
        public static let connectFailed = Code(.connectFailed)
        /// The connection was not established within the connect timeout.
        public static let connectTimeout = Code(.connectTimeout)
        /// The WebSocket opening handshake failed (bad status, missing or wrong accept key).
        public static let handshakeFailed = Code(.handshakeFailed)
        /// The opening handshake did not finish within the handshake timeout.
        public static let handshakeTimeout = Code(.handshakeTimeout)
        /// The server refused the upgrade (for example 401, 403 or 404); see ``httpStatus``.
        public static let upgradeRejected = Code(.upgradeRejected)
        /// The TLS handshake failed; ``message`` carries the TLS library's reason.
        public static let tlsHandshakeFailed = Code(.tlsHandshakeFailed)
        /// The peer's certificate does not chain to a trusted root.
        public static let certificateUntrusted = Code(.certificateUntrusted)
        /// The peer's certificate (or one in its chain) has expired or is not yet valid.
        public static let certificateExpired = Code(.certificateExpired)
        /// The peer's certificate does not name the host that was connected to.
        public static let hostnameMismatch = Code(.hostnameMismatch)
        /// The peer's public key matches none of the pinned keys.
        public static let pinMismatch = Code(.pinMismatch)
        /// A certificate, key or trust root could not be loaded.
        public static let tlsConfigurationInvalid = Code(.tlsConfigurationInvalid)
        /// The connection is closed; ``closeCode`` says how, when the peer said.
        public static let closed = Code(.closed)
        /// The peer broke the protocol (bad frame, unmasked client frame, reserved bits).
        public static let protocolViolation = Code(.protocolViolation)
        /// A frame or message is larger than the configured limit.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// A text message is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// No answer to a keepalive probe (a ping's pong, a heartbeat) arrived within its timeout.
        public static let keepaliveTimeout = Code(.keepaliveTimeout)
        /// A frame or request body that had begun to arrive did not finish within the read
        /// timeout: the peer stalled in the middle of it.
        public static let readTimeout = Code(.readTimeout)
        /// The peer did not read what was sent to it, and the bytes waiting for it passed the
        /// connection's hard limit.
        public static let peerNotReading = Code(.peerNotReading)
        /// An HTTP request was answered with a status other than 200; see ``httpStatus``.
        public static let httpStatus = Code(.httpStatus)
        /// A request body is larger than the server accepts (HTTP 413).
        public static let requestTooLarge = Code(.requestTooLarge)
        /// The operation was cancelled.
        public static let cancelled = Code(.cancelled)
        /// Reading or writing the socket failed.
        public static let ioError = Code(.ioError)
        /// The server is shutting down.
        public static let serverShutdown = Code(.serverShutdown)
        /// A reconnecting connection is not connected and cannot hold the work: it was never
        /// started, was closed, gave up, or has no offline queue.
        public static let notConnected = Code(.notConnected)
        /// A reconnecting connection's offline queue already holds its limit.
        public static let offlineQueueFull = Code(.offlineQueueFull)
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable reason.
    public var message: String
    /// The WebSocket close code, when the failure is a close.
    public var closeCode: CloseCode?
    /// The HTTP status, for ``Code/httpStatus``, ``Code/upgradeRejected`` and ``Code/requestTooLarge``.
    public var httpStatus: Int?
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(
        code: Code,
        message: String,
        closeCode: CloseCode? = nil,
        httpStatus: Int? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.closeCode = closeCode
        self.httpStatus = httpStatus
        self.cause = cause
    }

    /// `code: message`, with the close code or HTTP status when present.
    public var description: String {
        var text = "\(code): \(message)"
        if let closeCode {
            text += " (close code \(closeCode.rawValue))"
        }
        if let httpStatus {
            text += " (HTTP \(httpStatus))"
        }
        return text
    }
}
