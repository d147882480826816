/// A TLS protocol version.
///
/// Used as the lowest version a connection accepts (``TLSClientConfiguration/minimumVersion``,
/// ``TLSServerConfiguration/minimumVersion``). Versions compare by age: `.v1_2 < .v1_3`.
public struct TLSVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The protocol version number as it appears on the wire, for example `0x0303` for TLS 1.2.
    package let wireValue: Int32

    private init(wireValue: Int32) {
        self.wireValue = wireValue
    }

    /// TLS 1.2 (RFC 5246).
    public static let v1_2 = TLSVersion(wireValue: 0x0303)
    /// TLS 1.3 (RFC 8446).
    public static let v1_3 = TLSVersion(wireValue: 0x0304)
    /// TLS 1.2, under the name the Cap'n Web Swift API uses
    /// (`TLSConfiguration(minimumVersion: .TLSv12, …)`); the same as ``v1_2``.
    public static let TLSv12 = v1_2
    /// TLS 1.3, under the name the Cap'n Web Swift API uses; the same as ``v1_3``.
    public static let TLSv13 = v1_3

    /// The version with the given wire value, when it is one this package supports.
    package init?(negotiatedWireValue: Int32) {
        switch negotiatedWireValue {
        case TLSVersion.v1_2.wireValue: self = .v1_2
        case TLSVersion.v1_3.wireValue: self = .v1_3
        default: return nil
        }
    }

    /// `"TLS 1.2"` or `"TLS 1.3"`.
    public var description: String {
        self == .v1_3 ? "TLS 1.3" : "TLS 1.2"
    }

    /// Whether `lhs` is an older protocol version than `rhs`.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool {
        lhs.wireValue < rhs.wireValue
    }
}
