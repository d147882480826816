/// One extension of a `Sec-WebSocket-Extensions` list: a name and its parameters, in order.
///
/// `permessage-deflate; client_max_window_bits=10; server_no_context_takeover` is the element
/// named `permessage-deflate` with the parameters `client_max_window_bits` (value `10`) and
/// `server_no_context_takeover` (no value). Quoted values are stored unquoted and unescaped.
struct WebSocketExtensionElement: Hashable, Sendable {
    /// One `name` or `name=value` parameter.
    struct Parameter: Hashable, Sendable {
        /// The parameter name, as written.
        var name: String
        /// The value, unquoted; `nil` when the parameter has no `=`.
        var value: String?
    }

    /// The extension name, as written.
    var name: String
    /// The parameters, in the order they were written.
    var parameters: [Parameter]

    /// Whether this element names `extensionName`, ignoring ASCII case.
    func hasName(_ extensionName: String) -> Bool {
        name.lowercased() == extensionName.lowercased()
    }
}
