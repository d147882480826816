/// One call as interceptors see it.
public struct ClientCall: Sendable {
    /// The call: a ref's expression (`.users.get(id: "1").profile`) or a method name.
    public var method: String
    /// A number unique among the calls of one client or connection, increasing.
    public var id: UInt64
    /// How long the call may take per attempt.
    public var timeout: Duration
    /// Whether the call may be repeated after it reached the wire (see the retry rule).
    public var isIdempotent: Bool
    /// Per-call values: what the caller attached with `RpcRef.withMetadata(_:)`, which each
    /// interceptor may read and change for the ones after it. They stay in the client (Cap'n Web
    /// carries no per-call headers); connection-wide headers are
    /// ``RpcClientConfiguration/headers``. When a tracer records (see
    /// ``RpcClientConfiguration/observability``), the trace context of the call's client span
    /// is written here in the tracer's format (`traceparent` for OpenTelemetry) before the
    /// interceptors run, for one that carries it to a server.
    public var metadata: [String: String]

    /// Creates a call description.
    public init(method: String, id: UInt64, timeout: Duration, isIdempotent: Bool = false, metadata: [String: String] = [:]) {
        self.method = method
        self.id = id
        self.timeout = timeout
        self.isIdempotent = isIdempotent
        self.metadata = metadata
    }
}
