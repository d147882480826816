extension RpcError: ManagedFailure {
    /// The managed channel's failure as RpcDo reports it (`timeout`, `cancelled`,
    /// `connectionLost`, …).
    public static func channel(_ error: ManagedConnectionError) -> RpcError {
        ErrorMapping.map(error)
    }

    /// A failure of this process (an interceptor's own error, say): never ``remote(type:message:)``.
    public static func local(_ error: any Error) -> RpcError {
        ErrorMapping.map(any: error)
    }

    /// The wait a rate-limited call's error asks for, clamped.
    public var retryAfter: Duration? {
        ClientCore.retryAfter(self)
    }
}
