/// One setting of a ``Configuration`` written in the builder form: ``Timeout``, ``Reconnect``,
/// ``Headers``, ``Header`` or ``TLS``.
///
/// ```swift
/// let session = try await RpcSession<API>.connect(to: url) {
///     Timeout(.seconds(30))
///     Headers { Header("X-Client-Version", "1.0.0") }
/// }
/// ```
public protocol ConfigurationComponent {
    /// Writes this setting into `configuration`.
    func apply(to configuration: inout Configuration)
}
