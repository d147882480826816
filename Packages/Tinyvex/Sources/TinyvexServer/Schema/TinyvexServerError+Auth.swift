import RpcWire
import TinyvexProtocol

extension TinyvexServerError {
    /// What an auth hook throws for a token that was valid and has expired: the caller gets
    /// `TVX006` with `data.details.reason` `tokenExpired`, and the `Tinyvex` client asks its
    /// token provider for a new token.
    ///
    /// ```swift
    /// TinyvexServerConfiguration(authenticate: { token in
    ///     let claims = try verify(token)
    ///     guard claims.expiry > .now else { throw TinyvexServerError.tokenExpired() }
    ///     return claims.subject
    /// })
    /// ```
    public static func tokenExpired(_ message: String = "the token has expired") -> TinyvexServerError {
        TinyvexServerError(.unauthorized, message, details: ["reason": "tokenExpired"])
    }

    /// What the server answers for a token its auth hook refuses (returns `nil` for, or throws
    /// any other error for): `TVX006` with `data.details.reason` `tokenRefused`.
    public static func tokenRefused(_ message: String = "the token was refused") -> TinyvexServerError {
        TinyvexServerError(.unauthorized, message, details: ["reason": "tokenRefused"])
    }
}
