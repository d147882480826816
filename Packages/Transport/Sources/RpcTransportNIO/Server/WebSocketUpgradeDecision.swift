/// What a ``TransportServer``'s upgrade hook decides about an opening handshake.
///
/// ```swift
/// configuration.upgradeHook = { request in
///     guard request.headers.first(name: "authorization") == "Bearer secret" else {
///         return .reject(status: 401)
///     }
///     return .accept(subprotocol: request.offeredSubprotocols.first { $0 == "capnweb" })
/// }
/// ```
public struct WebSocketUpgradeDecision: Sendable, Hashable {
    enum Outcome: Sendable, Hashable {
        case accept(subprotocol: String?)
        case reject(status: Int)
    }

    let outcome: Outcome

    /// Accepts the upgrade, with `subprotocol` (which must be one the client offered) or none.
    public static func accept(subprotocol: String? = nil) -> WebSocketUpgradeDecision {
        WebSocketUpgradeDecision(outcome: .accept(subprotocol: subprotocol))
    }

    /// Whether the upgrade is accepted.
    public var isAccepted: Bool {
        if case .accept = outcome { return true }
        return false
    }

    /// The subprotocol an accepted upgrade selects; `nil` when it selects none or is refused.
    public var subprotocol: String? {
        if case .accept(let subprotocol) = outcome { return subprotocol }
        return nil
    }

    /// The status a refused upgrade is answered with (400–599); `nil` when it is accepted.
    public var refusalStatus: Int? {
        if case .reject(let status) = outcome { return status }
        return nil
    }

    /// Refuses the upgrade; the client gets an HTTP answer with `status` (for example 401, 403
    /// or 404) and the connection is closed. Statuses outside 400–599 are sent as 403.
    public static func reject(status: Int) -> WebSocketUpgradeDecision {
        WebSocketUpgradeDecision(outcome: .reject(status: (400 ... 599).contains(status) ? status : 403))
    }
}
