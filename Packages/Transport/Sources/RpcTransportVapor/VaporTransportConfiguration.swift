public import RpcTransportNIO

/// The limits of the WebSockets and HTTP requests a Vapor route hands to our transports: the
/// same settings, with the same defaults, as a `TransportServer`'s, for the
/// part of the work that is ours once Vapor has routed the request.
///
/// ```swift
/// var configuration = VaporTransportConfiguration()
/// configuration.maxMessageSize = 1024 * 1024
/// configuration.deflate = .default
/// ```
public typealias VaporTransportConfiguration = HostedTransportConfiguration
