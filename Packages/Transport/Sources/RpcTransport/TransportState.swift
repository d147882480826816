/// The lifecycle of one transport connection.
///
/// A transport moves forward only: `connecting` → `open` → `closing` → `closed`, possibly
/// skipping steps (a failed connect goes straight to `closed`).
public enum TransportState: Sendable, CustomStringConvertible {
    /// The connection or its handshake is in progress.
    case connecting
    /// Messages can be sent and received.
    case open
    /// A close handshake is in progress; nothing more can be sent.
    case closing
    /// The connection is over.
    case closed(TransportClosure)

    /// Whether messages can be sent.
    public var isOpen: Bool {
        if case .open = self { return true }
        return false
    }

    /// Whether the connection is over.
    public var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }

    /// `connecting`, `open`, `closing` or `closed …`.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .open: "open"
        case .closing: "closing"
        case .closed(let closure): closure.description
        }
    }
}
