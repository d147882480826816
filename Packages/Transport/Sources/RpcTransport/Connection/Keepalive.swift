/// How a connection checks that its peer is still there: every ``interval`` a probe is sent,
/// and when no answer comes within ``timeout`` the transport is ended (so that a
/// ``ReconnectingConnection`` reconnects).
///
/// The probe is the transport's frame-level ping (``PingableTransport/ping()``) when it has one
/// and ``usesTransportPing`` is on; otherwise the application-level ``heartbeat``. With neither,
/// nothing is probed. The ``KeepaliveScheduler`` runs it.
///
/// ```swift
/// var configuration = ReconnectingConnectionConfiguration()
/// configuration.keepalive = Keepalive(interval: .seconds(20), timeout: .seconds(5))
/// ```
public struct Keepalive: Sendable {
    /// Checks the peer over the protocol above the transport: sends a request and returns when
    /// any answer arrives; throwing counts as no answer.
    public typealias Heartbeat = @Sendable (any MessageTransport) async throws -> Void

    /// The time between two probes. Default 30 seconds.
    public var interval: Duration
    /// How long an answer may take before the peer is considered gone. Default 10 seconds.
    public var timeout: Duration
    /// Whether a transport with a frame-level ping is probed with it. Default `true`; turn it
    /// off to always run ``heartbeat``, which also checks the protocol above.
    public var usesTransportPing: Bool
    /// The application-level probe, for transports without a frame-level ping (or for all when
    /// ``usesTransportPing`` is off); `nil` for none.
    public var heartbeat: Heartbeat?

    /// Creates keepalive settings.
    public init(
        interval: Duration = .seconds(30),
        timeout: Duration = .seconds(10),
        usesTransportPing: Bool = true,
        heartbeat: Heartbeat? = nil
    ) {
        self.interval = interval
        self.timeout = timeout
        self.usesTransportPing = usesTransportPing
        self.heartbeat = heartbeat
    }

    /// The probe to run on `transport`, or `nil` when there is none.
    func probe(for transport: any MessageTransport) -> (@Sendable () async throws -> Void)? {
        if usesTransportPing, let pingable = transport as? any PingableTransport {
            return { try await pingable.ping() }
        }
        if let heartbeat {
            return { try await heartbeat(transport) }
        }
        return nil
    }
}
