import RpcWire
import TinyvexProtocol

/// A paginated query's cursor: the position a page ends at (its last item), or the end of the
/// query's whole range, tied to the query it was made by.
///
/// On the wire it is opaque: the JSON `{"v":1,"q":…,"k":[…],"i":…}` (or `{"v":1,"q":…,"end":true}`)
/// in unpadded base64url, where `q` names the query (its table, index, equalities, bounds and
/// direction) so that a cursor of another query is refused rather than read somewhere else.
enum PageCursor: Sendable, Hashable {
    /// After the document at this position.
    case position(PagePosition)
    /// After everything the query's range holds, now and later.
    case end

    /// The cursor's text for the query named `query` (a ``PageQueryShape/name``).
    func encoded(query: String) -> String {
        var object: JSONObject = ["v": 1, "q": .string(query)]
        switch self {
        case .position(let position):
            object["k"] = .array(position.keys.map(\.json))
            object["i"] = .integer(position.id)
        case .end:
            object["end"] = true
        }
        let text = (try? JSONSerializer().serialize(.object(object))) ?? []
        return Base64.encode(text, urlSafe: true)
    }

    /// Reads `text` as a cursor of the query named `query` with `keyCount` keys per position.
    ///
    /// - Throws: ``TinyvexServerError`` `TVX002` for text that is not such a cursor (damaged,
    ///   made up, or made by another query).
    init(_ text: String, query: String, keyCount: Int) throws(TinyvexServerError) {
        func refuse(_ why: String) -> TinyvexServerError {
            TinyvexServerError(.subscriptionRejected, "the pagination cursor is not usable: \(why)", details: ["reason": "invalidCursor"])
        }
        guard let bytes = Base64.decode(text, acceptingURLSafe: true), let value = try? JSONParser().parse(bytes), case .object(let object) = value else {
            throw refuse("it is not a cursor this server made")
        }
        guard object["v"] == .integer(1) else { throw refuse("its version is unknown") }
        guard object["q"] == .string(query) else { throw refuse("it was made by another query") }
        if object["end"] == .bool(true) {
            guard object.count == 3 else { throw refuse("it is not a cursor this server made") }
            self = .end
            return
        }
        guard object.count == 4, case .array(let values)? = object["k"], case .integer(let id)? = object["i"] else {
            throw refuse("it is not a cursor this server made")
        }
        guard values.count == keyCount else { throw refuse("it holds \(values.count) index values, the query orders by \(keyCount)") }
        var keys: [PagePosition.Key] = []
        for value in values {
            guard let key = PagePosition.Key(json: value) else { throw refuse("it holds a value an index does not") }
            keys.append(key)
        }
        self = .position(PagePosition(keys: keys, id: id))
    }
}
