/// The reason text of a WebSocket close from a RivetKit server: `group.code`, optionally
/// followed by `#rayId` (for example `actor.not_found#a1b2`). Clients turn it into a
/// structured ``ActorError``.
public struct ActorCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// The error group.
    public var group: String
    /// The error code.
    public var code: String
    /// The ray id that traces the request, when the server gave one.
    public var rayId: String?

    /// Creates a reason.
    public init(group: String, code: String, rayId: String? = nil) {
        self.group = group
        self.code = code
        self.rayId = rayId
    }

    /// Reads `group.code[#ray]`; `nil` when `text` is not of that shape (`Disposed`, empty).
    public init?(parsing text: String) {
        var rest = Substring(text)
        var ray: String?
        if let hash = rest.firstIndex(of: "#") {
            ray = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        guard let dot = rest.firstIndex(of: "."), dot != rest.startIndex, rest.index(after: dot) != rest.endIndex,
            !rest.contains(where: { $0 == " " })
        else { return nil }
        self.init(group: String(rest[..<dot]), code: String(rest[rest.index(after: dot)...]), rayId: ray)
    }

    /// `group.code` or `group.code#ray`.
    public var description: String {
        rayId.map { "\(group).\(code)#\($0)" } ?? "\(group).\(code)"
    }

    /// The error this close reports, with `message` as its text.
    public func error(message: String = "") -> ActorError {
        ActorError(
            group: group, code: code,
            message: message.isEmpty ? "the connection was closed: \(description)" : message)
    }

    /// Whether a key-based connection closed with this reason should look the actor up again:
    /// group `actor` with `not_found`, `starting`, `stopping`, `not_configured`,
    /// `dropped_reply` or any `destroyed_*` code.
    public var isStaleActor: Bool {
        ActorErrorCode(group: group, code: code).isStaleActor
    }
}
