import Foundation
import RpcTransport
import RpcTransportNIO

/// How a RivetKit client reaches its server, as RivetKit's `createClient` takes it.
///
/// The endpoint may carry the namespace and token as credentials:
/// `https://NAMESPACE:TOKEN@host/api/rivet` (a namespace alone is allowed, a token without a
/// namespace is not). Giving the namespace or token both there and as a parameter, or an
/// endpoint with a query string or fragment, is a configuration error
/// (``ActorError`` `client.config_error`), reported when the client is used.
///
/// ```swift
/// let config = ClientConfig(endpoint: "http://127.0.0.1:6420", token: "secret", namespace: "prod")
/// ```
///
/// Two configurations are equal when every setting but ``interceptors`` and ``observability``
/// is (interceptors, metrics factories and tracers are values of any type and are not
/// compared).
public struct ClientConfig: Sendable, Hashable {
    /// The endpoint as given.
    public var endpoint: String
    /// The token, when given as a parameter.
    public var token: String?
    /// The namespace, when given as a parameter.
    public var namespace: String?
    /// The runner pool name sent with creations. Default `default`.
    public var runnerName: String
    /// Extra headers sent with every HTTP request.
    public var headers: [String: String]
    /// Whether to skip the `GET /metadata` lookup (and its endpoint, namespace and token
    /// overrides). Default `false`.
    public var disableMetadataLookup: Bool
    /// The wait between reconnect attempts of realtime connections. Default 250 ms doubling
    /// to 30 s, with jitter, retried for ever.
    public var reconnectBackoff: Backoff
    /// How long opening a realtime connection may take before the attempt counts as failed:
    /// the socket within it, then the actor's `Init` within it again. Default 10 seconds.
    public var connectTimeout: Duration
    /// How many events one listener may have waiting; past it the oldest are dropped, so a
    /// slow consumer cannot make the client hold more. Default 1,024.
    public var maxBufferedEvents: Int
    /// The longest creation input a realtime connection carries in its URL, in bytes of the
    /// encoded `rvt-input` (unpadded base64url of CBOR). A longer one fails the open with
    /// ``ActorError`` `client.config_error` instead of sending an over-long URL; HTTP
    /// resolution (`PUT /actors`, `create`) carries the input in its body and is not limited.
    /// Default ``ClientConfig/defaultMaxInputSize`` (4 KiB).
    public var maxInputSize: Int

    /// How many actions a realtime connection holds while it is not connected (they are sent
    /// after the next `Init`); one more is refused at once with ``ActorError``
    /// `client.not_connected`. Default ``ClientConfig/defaultMaxQueuedActions`` (1,024).
    public var maxQueuedActions: Int
    /// How many times the `GET /metadata` lookup is tried (with a backoff of 500 ms doubling
    /// to 15 s between attempts) before it gives up with ``ActorError`` `client.http_error`.
    /// Default ``ClientConfig/defaultMetadataLookupAttempts`` (5, about 7.5 s of waiting).
    public var metadataLookupAttempts: Int
    /// How long a realtime action may wait for its answer once its connection is ready for it
    /// (after the actor's `Init`); past it the action fails with ``ActorError``
    /// `client.action_timeout` (an answer that comes later is dropped). Default
    /// ``ClientConfig/defaultActionTimeout`` (60 seconds, RivetKit's `actionTimeout`).
    public var actionTimeout: Duration
    /// Run in order around every realtime action (``ActorConnection/action(_:args:metadata:)``),
    /// as RpcDo's calls run through theirs: each sees the action's name as the call's `method`,
    /// its ``ClientConfig/actionTimeout`` and its metadata, and may change the metadata, fail
    /// the action before it is sent, or observe its outcome. Default none.
    public var interceptors: [any ClientInterceptor]
    /// Where the client's spans go: a client span per action (realtime or HTTP), and the tracer
    /// whose trace context is sent with each realtime connection's upgrade and each HTTP action,
    /// so that the server's spans join the client's trace; also the realtime connections'
    /// metrics (`protocol="rivetkit"`). Default: the process-wide factory and tracer. Like
    /// ``interceptors``, not compared.
    public var observability: RpcObservability

    /// RivetKit's limit on `rvt-input`: 4 KiB.
    public static let defaultMaxInputSize = 4 * 1024
    /// The default of ``maxQueuedActions``: 1,024.
    public static let defaultMaxQueuedActions = 1024
    /// The default of ``metadataLookupAttempts``: 5.
    public static let defaultMetadataLookupAttempts = 5
    /// The default of ``actionTimeout``: 60 seconds.
    public static let defaultActionTimeout: Duration = .seconds(60)

    /// Creates a configuration. Without an endpoint, `RIVET_ENDPOINT` or
    /// `http://127.0.0.1:6420` is used; without a token or namespace, `RIVET_TOKEN` and
    /// `RIVET_NAMESPACE` are read.
    public init(
        endpoint: String? = nil,
        token: String? = nil,
        namespace: String? = nil,
        runnerName: String = "default",
        headers: [String: String] = [:],
        disableMetadataLookup: Bool = false,
        reconnectBackoff: Backoff = Backoff(initialDelay: .milliseconds(250), maxDelay: .seconds(30)),
        connectTimeout: Duration = .seconds(10),
        maxBufferedEvents: Int = 1024,
        maxInputSize: Int = ClientConfig.defaultMaxInputSize,
        maxQueuedActions: Int = ClientConfig.defaultMaxQueuedActions,
        metadataLookupAttempts: Int = ClientConfig.defaultMetadataLookupAttempts,
        actionTimeout: Duration = ClientConfig.defaultActionTimeout,
        interceptors: [any ClientInterceptor] = [],
        observability: RpcObservability = RpcObservability()
    ) {
        let environment = ProcessInfo.processInfo.environment
        self.endpoint = endpoint ?? environment["RIVET_ENDPOINT"] ?? "http://127.0.0.1:6420"
        self.token = token ?? environment["RIVET_TOKEN"]
        self.namespace = namespace ?? environment["RIVET_NAMESPACE"]
        self.runnerName = runnerName
        self.headers = headers
        self.disableMetadataLookup = disableMetadataLookup
        self.reconnectBackoff = reconnectBackoff
        self.connectTimeout = connectTimeout
        self.maxBufferedEvents = maxBufferedEvents
        self.maxInputSize = maxInputSize
        self.maxQueuedActions = maxQueuedActions
        self.metadataLookupAttempts = metadataLookupAttempts
        self.actionTimeout = actionTimeout
        self.interceptors = interceptors
        self.observability = observability
    }

    /// Whether every setting but ``interceptors`` and ``observability`` is equal.
    public static func == (lhs: ClientConfig, rhs: ClientConfig) -> Bool {
        lhs.endpoint == rhs.endpoint && lhs.token == rhs.token && lhs.namespace == rhs.namespace
            && lhs.runnerName == rhs.runnerName && lhs.headers == rhs.headers
            && lhs.disableMetadataLookup == rhs.disableMetadataLookup && lhs.reconnectBackoff == rhs.reconnectBackoff
            && lhs.connectTimeout == rhs.connectTimeout && lhs.maxBufferedEvents == rhs.maxBufferedEvents
            && lhs.maxInputSize == rhs.maxInputSize && lhs.maxQueuedActions == rhs.maxQueuedActions
            && lhs.metadataLookupAttempts == rhs.metadataLookupAttempts && lhs.actionTimeout == rhs.actionTimeout
    }

    /// Hashes every setting but ``interceptors`` and ``observability``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(endpoint)
        hasher.combine(token)
        hasher.combine(namespace)
        hasher.combine(runnerName)
        hasher.combine(headers)
        hasher.combine(disableMetadataLookup)
        hasher.combine(reconnectBackoff)
        hasher.combine(connectTimeout)
        hasher.combine(maxBufferedEvents)
        hasher.combine(maxInputSize)
        hasher.combine(maxQueuedActions)
        hasher.combine(metadataLookupAttempts)
        hasher.combine(actionTimeout)
    }

    /// The endpoint taken apart: the URL without credentials, the namespace (default
    /// `default`) and the token.
    ///
    /// - Throws: ``ActorError`` `client.config_error` as described above.
    public func resolved() throws(ActorError) -> ResolvedClientConfig {
        func failure(_ message: String) -> ActorError {
            ActorError(.clientConfigError, message)
        }
        guard !endpoint.contains("?"), !endpoint.contains("#") else {
            throw failure("the endpoint \(endpoint) must not have a query string or fragment")
        }
        guard let schemeEnd = endpoint.range(of: "://") else {
            throw failure("the endpoint \(endpoint) has no scheme")
        }
        let scheme = endpoint[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw failure("the endpoint must be http or https, not \(scheme)")
        }
        var rest = endpoint[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var urlNamespace: String?
        var urlToken: String?
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            let credentials = rest[..<at]
            if let colon = credentials.firstIndex(of: ":") {
                urlNamespace = HTTPQuery.decode(credentials[..<colon])
                urlToken = HTTPQuery.decode(credentials[credentials.index(after: colon)...])
            } else {
                urlNamespace = HTTPQuery.decode(credentials)
            }
            if urlNamespace?.isEmpty == true {
                guard urlToken == nil || urlToken?.isEmpty == true else {
                    throw failure("the endpoint gives a token without a namespace")
                }
                urlNamespace = nil
            }
            if urlToken?.isEmpty == true { urlToken = nil }
            rest = rest[rest.index(after: at)...]
        }
        if urlNamespace != nil, namespace != nil {
            throw failure("the namespace is given both in the endpoint and as a parameter")
        }
        if urlToken != nil, token != nil {
            throw failure("the token is given both in the endpoint and as a parameter")
        }
        var base = "\(scheme)://\(rest)"
        while base.hasSuffix("/") { base.removeLast() }
        return ResolvedClientConfig(
            endpoint: base, namespace: urlNamespace ?? namespace ?? "default", token: urlToken ?? token,
            runnerName: runnerName, headers: headers, disableMetadataLookup: disableMetadataLookup)
    }
}

/// A ``ClientConfig`` with its endpoint taken apart, or overridden by the server's metadata.
public struct ResolvedClientConfig: Sendable, Hashable {
    /// The endpoint without credentials or trailing `/`.
    public var endpoint: String
    /// The namespace.
    public var namespace: String
    /// The token, if any.
    public var token: String?
    /// The runner pool name.
    public var runnerName: String
    /// Extra headers for HTTP requests.
    public var headers: [String: String]
    /// Whether the metadata lookup is skipped.
    public var disableMetadataLookup: Bool
}

extension ResolvedClientConfig {
    /// The endpoint with its WebSocket scheme: `ws://` for `http://`, `wss://` for `https://`.
    var webSocketEndpoint: String {
        if endpoint.hasPrefix("https://") { return "wss://" + endpoint.dropFirst("https://".count) }
        if endpoint.hasPrefix("http://") { return "ws://" + endpoint.dropFirst("http://".count) }
        return endpoint
    }
}
