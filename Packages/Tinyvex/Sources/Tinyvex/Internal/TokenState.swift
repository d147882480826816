import RpcTransport

/// A link a ``TokenState`` keeps: anything that knows which link of the series it is.
protocol GenerationalLink: Sendable {
    /// Which connection of the series it is, from 1.
    var generation: UInt64 { get }
}

extension ReconnectingConnection.Link: GenerationalLink {}

/// The client's token and ready link as a pure state machine: each input (a handshake begins
/// or has connected, a link is ready or lost, the token changes, the client closes) changes the
/// state and returns the token write the shell must make, if any, and on which link.
///
/// A token set while a handshake's `connect` is on its way must still reach the server before
/// that link's resubscriptions and calls; a token set while a link is ready is written at once;
/// every handshake sends the newest token. ``TinyvexClientCore`` is the shell: it performs the
/// writes (non-blocking enqueues) under its lock, so that they leave in the order the token
/// changed.
struct TokenState<Link: GenerationalLink>: Sendable {
    /// A `tinyvex/setToken` to write on `link`.
    struct Write: Sendable {
        /// Where to write it.
        let link: Link
        /// The token (`nil` clears it).
        let token: String?
    }

    /// The token every handshake sends.
    private(set) var token: String?
    /// The ready link, if any.
    private(set) var readyLink: Link?
    /// Whether the client was closed: nothing more is written.
    private(set) var closed = false
    /// Bumped by every token change.
    private var version: UInt64 = 0
    /// The token version the newest handshake sent, with its link's generation.
    private var sent: (generation: UInt64, version: UInt64)?

    /// A handshake begins on the link of `generation`: returns the token its `connect` carries.
    mutating func handshakeBegan(generation: UInt64) -> String? {
        sent = (generation, version)
        return token
    }

    /// The handshake's `connect` on `link` was answered: the token to write now, before the
    /// resubscriptions, when it changed meanwhile.
    mutating func handshakeConnected(on link: Link) -> Write? {
        guard let sent, sent.generation == link.generation, sent.version != version else { return nil }
        self.sent = (link.generation, version)
        return Write(link: link, token: token)
    }

    /// `link` is ready: later token changes and unsubscribes go to it; the token is written
    /// now unless its handshake sent this very version.
    mutating func ready(_ link: Link) -> Write? {
        readyLink = link
        if let sent, sent.generation == link.generation, sent.version == version { return nil }
        return Write(link: link, token: token)
    }

    /// The link of `generation` is gone.
    mutating func lost(generation: UInt64) {
        if readyLink?.generation == generation { readyLink = nil }
    }

    /// The token changes: written at once on the ready link (unless closed), sent by every later
    /// handshake.
    mutating func setToken(_ token: String?) -> Write? {
        self.token = token
        version += 1
        guard !closed, let readyLink else { return nil }
        return Write(link: readyLink, token: token)
    }

    /// Where an unsubscribe goes now: the ready link, unless closed or offline.
    var unsubscribeLink: Link? {
        closed ? nil : readyLink
    }

    /// The client closes.
    mutating func close() {
        closed = true
    }
}
