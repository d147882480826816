#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
internal import RpcTransport
@_spi(RpcImplementation) internal import RpcTransportNIO
public import CapnWebCore

extension RpcSession {
    /// Connects to a Cap'n Web server over WebSocket.
    ///
    /// ```swift
    /// let session = try await RpcSession<API>.connect(to: url) { config in
    ///     config.timeout = .seconds(30)
    ///     config.reconnect = .exponentialBackoff(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(30))
    ///     config.headers["Authorization"] = "Bearer \(token)"
    /// }
    /// ```
    ///
    /// The session reconnects by itself after a loss when ``Configuration/reconnect`` allows
    /// it; call ``close()`` (or use ``withRpcSession(to:configure:isolation:_:)``) to end it.
    ///
    /// - Parameters:
    ///   - url: A `ws://` or `wss://` URL.
    ///   - configure: Changes the default ``Configuration``.
    /// - Returns: The connected session.
    /// - Throws: ``RpcError/connectionLost(_:)`` with the transport's error: code
    ///   ``TransportError/Code/invalidTarget`` for a URL with another scheme or no
    ///   host, ``TransportError/Code/tlsConfigurationInvalid`` for a certificate
    ///   that cannot be read, the connect failure otherwise.
    public static func connect(
        to url: URL,
        configure: ((inout Configuration) -> Void)? = nil
    ) async throws(RpcError) -> RpcSession<API> {
        var configuration = Configuration()
        configure?(&configuration)
        return try await connect(to: url, configuration: configuration)
    }

    /// Connects to a Cap'n Web server over WebSocket, with the configuration written in the
    /// builder form.
    ///
    /// ```swift
    /// let session = try await RpcSession<API>.connect(to: url) {
    ///     Timeout(.seconds(30))
    ///     Reconnect {
    ///         MaxAttempts(10)
    ///         Backoff(.exponential(base: .seconds(1), max: .seconds(30)))
    ///     }
    ///     Headers { Header("X-Client-Version", "1.0.0") }
    /// }
    /// ```
    ///
    /// - Throws: As `connect(to:configure:)`.
    public static func connect(
        to url: URL,
        @ConfigurationBuilder configure: () -> Configuration
    ) async throws(RpcError) -> RpcSession<API> {
        try await connect(to: url, configuration: configure())
    }

    /// Connects to a Cap'n Web server over WebSocket, the URL given as text.
    ///
    /// ```swift
    /// let session = try await RpcSession<TodoAPI>.connect(to: "wss://api.example.com")
    /// ```
    ///
    /// - Throws: ``RpcError/connectionLost(_:)`` with a ``TransportError`` of code ``TransportError/Code/invalidTarget``
    ///   for text that is not a URL, and as
    ///   `connect(to:configure:)`.
    public static func connect(
        to url: String,
        configure: ((inout Configuration) -> Void)? = nil
    ) async throws(RpcError) -> RpcSession<API> {
        try await connect(to: try parsedURL(url), configure: configure)
    }

    /// Connects to a Cap'n Web server over WebSocket, the URL given as text and the
    /// configuration in the builder form.
    ///
    /// - Throws: As `connect(to:configure:)`.
    public static func connect(
        to url: String,
        @ConfigurationBuilder configure: () -> Configuration
    ) async throws(RpcError) -> RpcSession<API> {
        try await connect(to: try parsedURL(url), configuration: configure())
    }

    /// `text` as a URL.
    static func parsedURL(_ text: String) throws(RpcError) -> URL {
        guard let url = URL(string: text) else {
            throw .invalidTarget("'\(text)' is not a URL")
        }
        return url
    }

    /// Connects to a Cap'n Web server over WebSocket with a complete configuration.
    ///
    /// - Throws: As `connect(to:configure:)`.
    public static func connect(
        to url: URL,
        configuration: Configuration
    ) async throws(RpcError) -> RpcSession<API> {
        let connector = try WebSocketConnector(url: url, configuration: configuration)
        return try await connect(
            configuration: configuration,
            executor: EventLoopTaskExecutor(connector.eventLoop),
            connector: { () async throws -> any MessageTransport in try await connector.connect() })
    }
}

extension RpcSession where API == Any {
    /// Connects to a Cap'n Web server over WebSocket with an untyped API, whose members are
    /// reached dynamically (`session.api.users.get(id: 123)`).
    ///
    /// ```swift
    /// let session = try await RpcSession.connect(to: "wss://api.example.com")
    /// ```
    ///
    /// - Throws: As `RpcSession.connect(to:configure:)`.
    public static func connect(
        to url: String,
        configure: ((inout Configuration) -> Void)? = nil
    ) async throws(RpcError) -> RpcSession<Any> {
        try await RpcSession<Any>.connect(to: try parsedURL(url), configure: configure)
    }

    /// Connects to a Cap'n Web server over WebSocket with an untyped API.
    ///
    /// - Throws: As `RpcSession.connect(to:configure:)`.
    public static func connect(
        to url: URL,
        configure: ((inout Configuration) -> Void)? = nil
    ) async throws(RpcError) -> RpcSession<Any> {
        var configuration = Configuration()
        configure?(&configuration)
        return try await RpcSession<Any>.connect(to: url, configuration: configuration)
    }
}
