/// The user inbound event a TLS handler fires once its handshake succeeded, and the value of
/// the handshake promise handed to it.
///
/// Handlers after the TLS handler see it through `userInboundEventTriggered`; writes made
/// before it are buffered by the TLS handler and sent once it fires.
struct TLSHandshakeCompleted: Hashable, Sendable {
    /// The protocol agreed through ALPN, or `nil` when none was.
    var applicationProtocol: String?
    /// The negotiated protocol version, or `nil` when it is not one this package names.
    var protocolVersion: TLSVersion?
}
