public import RpcWire

/// The canonical text of a JSON value: object keys sorted, no whitespace, slashes unescaped.
///
/// Both ends key live queries by `(name, canonical(params))`, so the same params written in any
/// key order share one stream.
public enum TinyvexCanonicalJSON {
    /// The canonical text of `value`; `nil` when it holds a non-finite number.
    public static func text(_ value: JSONValue) -> String? {
        guard let bytes = try? JSONSerializer(configuration: .init(canonical: true)).serialize(value) else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
