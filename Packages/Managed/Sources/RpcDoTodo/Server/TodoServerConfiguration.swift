public import CapnWeb

/// Where a ``TodoServer`` listens and how its sessions behave.
public struct TodoServerConfiguration: Sendable {
    /// The address to listen on (default `127.0.0.1`).
    public var host: String
    /// The port; 0 (the default) picks a free one, kept across restarts.
    public var port: Int
    /// The server sessions' settings (call timeout, limits); the server adds its own frame
    /// counting to ``CapnWeb/Configuration/trace`` and still calls yours.
    public var session: Configuration

    /// Creates a configuration.
    public init(host: String = "127.0.0.1", port: Int = 0, session: Configuration = Configuration()) {
        self.host = host
        self.port = port
        self.session = session
    }
}
