public import RpcTransport

/// Inside ``TLS``: the server's leaf certificate must carry one of these public keys (checked in
/// addition to the usual verification).
///
/// ```swift
/// TLS { PinnedPublicKeys(try PublicKeyPin(base64: "sha256/AAAA…")) }
/// ```
public struct PinnedPublicKeys: TLSComponent {
    /// The pins.
    public var pins: [PublicKeyPin]

    /// Pins `pins`.
    public init(_ pins: PublicKeyPin...) {
        self.pins = pins
    }

    /// Pins `pins`.
    public init(_ pins: [PublicKeyPin]) {
        self.pins = pins
    }

    /// Adds the pins.
    public func apply(to tls: inout TLSClientConfiguration) {
        tls.pinnedPublicKeys += pins
    }
}
