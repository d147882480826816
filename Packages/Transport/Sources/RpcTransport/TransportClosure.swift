/// How a transport's connection ended.
public struct TransportClosure: Sendable, CustomStringConvertible {
    /// The close code the peer sent or that was sent to it; `nil` when none was exchanged.
    public var code: CloseCode?
    /// The close reason that came with the code; empty when there was none.
    public var reason: String
    /// Whether this side started the close.
    public var initiatedLocally: Bool
    /// The failure that ended the connection; `nil` for a clean close handshake.
    public var error: TransportError?

    /// Creates a closure description.
    public init(code: CloseCode?, reason: String = "", initiatedLocally: Bool, error: TransportError? = nil) {
        self.code = code
        self.reason = reason
        self.initiatedLocally = initiatedLocally
        self.error = error
    }

    /// Whether the connection ended with a close handshake and no error.
    public var isClean: Bool { error == nil }

    /// The closure as a ``TransportError`` with code ``TransportError/Code/closed`` (or the
    /// failure itself), for operations attempted after the close.
    public var asError: TransportError {
        if let error {
            return error
        }
        let who = initiatedLocally ? "closed locally" : "closed by peer"
        let detail = reason.isEmpty ? "" : ": \(reason)"
        return TransportError(code: .closed, message: "connection \(who)\(detail)", closeCode: code)
    }

    /// `closed <code> <reason>`, or the error.
    public var description: String {
        if let error {
            return "failed: \(error)"
        }
        return "closed \(code.map { String($0.rawValue) } ?? "-") \(reason)"
    }
}
