/// One header sent with the WebSocket upgrade or the batch request; usable inside ``Headers``
/// or on its own.
///
/// ```swift
/// Header("Authorization", "Bearer \(token)")
/// ```
public struct Header: ConfigurationComponent, Sendable, Hashable {
    /// The header's name.
    public var name: String
    /// The header's value.
    public var value: String

    /// A header `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Adds (or replaces) the header.
    public func apply(to configuration: inout Configuration) {
        configuration.headers[name] = value
    }
}
