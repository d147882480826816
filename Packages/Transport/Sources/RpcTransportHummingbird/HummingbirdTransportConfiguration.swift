public import RpcTransportNIO

/// The limits of the WebSockets a Hummingbird route hands to our transports
/// (`Request.upgrade(_:configuration:onConnection:)`): the same settings, with the
/// same defaults, as a `TransportServer`'s.
///
/// ```swift
/// var configuration = HummingbirdTransportConfiguration()
/// configuration.maxMessageSize = 1024 * 1024
/// configuration.deflate = .default
/// ```
public typealias HummingbirdTransportConfiguration = HostedTransportConfiguration
