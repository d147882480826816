import RivetKit
import RpcTransportNIO
import RpcWire

/// The actor a gateway path names, in either form RivetKit's client uses:
/// `/gateway/{actorId}[@token]/…` or the query gateway `/gateway/{name}/…?rvt-method=…`.
struct GatewayTarget {
    enum Lookup {
        case id(String)
        case query(method: String, namespace: String, name: String, key: [String], input: JSONValue?)
    }

    var lookup: Lookup
    /// The token of the `@token` segment or of `rvt-token`.
    var token: String?
    /// The path segments after the actor segment (`["connect"]`, `["action", "increment"]`).
    var rest: [String]

    /// Reads a gateway path and query; `nil` when the path is not under `/gateway/`.
    ///
    /// - Throws: ``ActorError`` `request.invalid` for a malformed `rvt-input` or method,
    ///   `actor.invalid_key` for a malformed `rvt-key`.
    static func parse(path: String, query: String) throws(ActorError) -> GatewayTarget? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard segments.count >= 2, segments[0] == "gateway" else { return nil }
        var actorSegment = segments[1]
        var token: String?
        if let at = actorSegment.firstIndex(of: "@") {
            token = HTTPQuery.decode(actorSegment[actorSegment.index(after: at)...])
            actorSegment = String(actorSegment[..<at])
        }
        actorSegment = HTTPQuery.decode(Substring(actorSegment))
        let rest = segments.dropFirst(2).map { HTTPQuery.decode(Substring($0)) }
        let items = HTTPQuery.items(of: query)
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let rvtToken = value("rvt-token") { token = token ?? rvtToken }
        guard let method = value("rvt-method") else {
            return GatewayTarget(lookup: .id(actorSegment), token: token, rest: rest)
        }
        guard method == "get" || method == "getOrCreate" else {
            throw ActorError(.requestInvalid, "rvt-method \(method) is not get or getOrCreate")
        }
        // rvt-key is split at its literal commas before decoding: a comma inside a part is %2C.
        // Left out, the key is empty; present and empty, it is the key [""].
        let rawKey = query.split(separator: "&").first { $0 == "rvt-key" || $0.hasPrefix("rvt-key=") }
            .map { String($0.dropFirst(min($0.count, 8))) }
        let key = try rawKey.map { raw throws(ActorError) in try ActorKey.parse(queryValue: raw) } ?? []
        var input: JSONValue?
        if let encoded = value("rvt-input") {
            guard let bytes = Base64.decode(encoded, acceptingURLSafe: true) else {
                throw ActorError(.requestInvalid, "rvt-input is not base64url")
            }
            input = try RivetCBOR.decode(bytes)
        }
        return GatewayTarget(
            lookup: .query(
                method: method, namespace: value("rvt-namespace") ?? "default", name: actorSegment,
                key: key, input: input),
            token: token, rest: rest)
    }
}
