/// Adds headers to ``Configuration/headers``, sent with the WebSocket upgrade or the batch
/// request.
///
/// ```swift
/// Headers {
///     Header("X-Client-Version", "1.0.0")
///     Header("X-Platform", "iOS")
/// }
/// ```
public struct Headers: ConfigurationComponent, Sendable {
    /// The headers, in order.
    public var headers: [Header]

    /// The headers of the block.
    public init(@HeadersBuilder _ headers: () -> [Header]) {
        self.headers = headers()
    }

    /// Adds (or replaces) each header.
    public func apply(to configuration: inout Configuration) {
        for header in headers { header.apply(to: &configuration) }
    }
}
