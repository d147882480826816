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
///
/// Tokens are either set (``setToken(_:)``) or fetched from a provider
/// (``setProvider(_:)``): every handshake fetches one first (``handshakeFetch()``), a refusal
/// of the token a handshake sent asks the provider once more with `forceRefresh`
/// (``refused(generation:)``), and a fetched token counts only while its provider is the
/// current one (``fetched(_:epoch:)``), so a token set meanwhile is never overwritten.
struct TokenState<Link: GenerationalLink>: Sendable {
    /// Fetches a token; `forceRefresh` asks for a new one rather than one it holds.
    typealias Provider = @Sendable (_ forceRefresh: Bool) async -> String?

    /// A call of the provider the shell must make, then report with ``fetched(_:epoch:)``.
    struct Fetch: Sendable {
        /// What to call.
        let provider: Provider
        /// Which provider it is, to tell its answer from one of a provider set since.
        let epoch: UInt64
        /// Whether to ask for a new token.
        let forceRefresh: Bool
    }

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
    /// The provider tokens come from, if any, with its epoch.
    private var provider: (fetch: Provider, epoch: UInt64)?
    /// Bumped by every provider set (and by every token set, which ends the provider).
    private var epochs: UInt64 = 0
    /// The generation of the newest link whose refusal made the provider refresh.
    private var refreshedOn: UInt64?

    /// Whether tokens come from a provider.
    var hasProvider: Bool { provider != nil }

    /// Bumped by every change of the token: tells whether it changed while a write was on its way.
    var tokenVersion: UInt64 { version }

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

    /// The token is set: it replaces the provider, if any; written at once on the ready link
    /// (unless closed), sent by every later handshake.
    mutating func setToken(_ token: String?) -> Write? {
        provider = nil
        epochs += 1
        return change(token)
    }

    /// Tokens come from `provider` from now on: the fetch to make now when a link is ready
    /// (otherwise the next handshake fetches).
    mutating func setProvider(_ provider: @escaping Provider) -> Fetch? {
        epochs += 1
        self.provider = (provider, epochs)
        guard !closed, readyLink != nil else { return nil }
        return Fetch(provider: provider, epoch: epochs, forceRefresh: false)
    }

    /// A handshake is about to begin: the fetch to make first when tokens come from a provider.
    func handshakeFetch() -> Fetch? {
        guard !closed, let provider else { return nil }
        return Fetch(provider: provider.fetch, epoch: provider.epoch, forceRefresh: false)
    }

    /// The server refused (or found expired) the token the handshake of `generation` sent:
    /// the provider is asked once more, for a new token, once per link.
    mutating func refused(generation: UInt64) -> Fetch? {
        guard !closed, let provider, refreshedOn != generation else { return nil }
        refreshedOn = generation
        return Fetch(provider: provider.fetch, epoch: provider.epoch, forceRefresh: true)
    }

    /// A fetch of the provider of `epoch` returned `token`: it becomes the token unless another
    /// provider or token was set since; the write to make on the ready link, if it changed.
    mutating func fetched(_ token: String?, epoch: UInt64) -> Write? {
        guard let provider, provider.epoch == epoch, token != self.token else { return nil }
        return change(token)
    }

    private mutating func change(_ token: String?) -> Write? {
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
