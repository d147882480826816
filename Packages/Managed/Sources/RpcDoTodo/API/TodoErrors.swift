import CapnWeb

/// The errors the Todo API throws, by name: what the RpcDo client maps to its typed cases.
enum TodoErrors {
    /// `NotFound`: no `kind` with ID `id`.
    static func notFound(_ kind: String, _ id: String) -> RpcErrorValue {
        RpcErrorValue(name: "NotFound", message: "no \(kind) with id \(id)", properties: [.init("id", .string(id))])
    }

    /// `AuthenticationError`: the token is not valid.
    static func authentication(_ message: String) -> RpcErrorValue {
        RpcErrorValue(name: "AuthenticationError", message: message)
    }

    /// `RateLimitExceeded` with `retryAfter` in seconds.
    static func rateLimited(retryAfter: Double) -> RpcErrorValue {
        RpcErrorValue(
            name: "RateLimitExceeded", message: "too many calls; retry after \(retryAfter) s",
            properties: [.init("retryAfter", .double(retryAfter))])
    }

    /// `TypeError`: an argument has the wrong shape.
    static func type(_ message: String) -> RpcErrorValue {
        RpcErrorValue(name: "TypeError", message: message)
    }

    /// `RangeError`: an argument or the store is past a limit.
    static func range(_ message: String) -> RpcErrorValue {
        RpcErrorValue(name: "RangeError", message: message)
    }
}
