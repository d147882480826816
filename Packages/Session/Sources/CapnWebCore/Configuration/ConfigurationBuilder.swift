/// Builds a ``Configuration`` from components, starting from the defaults; later components
/// override earlier ones.
///
/// ```swift
/// let session = try await RpcSession<API>.connect(to: url) {
///     Timeout(.seconds(30))
///     Reconnect {
///         MaxAttempts(10)
///         Backoff(.exponential(base: .seconds(1), max: .seconds(30)))
///     }
///     Headers {
///         Header("X-Client-Version", "1.0.0")
///     }
/// }
/// ```
@resultBuilder
public enum ConfigurationBuilder {
    /// One component.
    public static func buildExpression(_ component: some ConfigurationComponent) -> [any ConfigurationComponent] {
        [component]
    }

    /// The components of a block, in order.
    public static func buildBlock(_ parts: [any ConfigurationComponent]...) -> [any ConfigurationComponent] {
        parts.flatMap { $0 }
    }

    /// The components of an `if` without `else`.
    public static func buildOptional(_ part: [any ConfigurationComponent]?) -> [any ConfigurationComponent] {
        part ?? []
    }

    /// The components of the first branch of an `if`/`else`.
    public static func buildEither(first part: [any ConfigurationComponent]) -> [any ConfigurationComponent] {
        part
    }

    /// The components of the second branch of an `if`/`else`.
    public static func buildEither(second part: [any ConfigurationComponent]) -> [any ConfigurationComponent] {
        part
    }

    /// The components of a `for` loop.
    public static func buildArray(_ parts: [[any ConfigurationComponent]]) -> [any ConfigurationComponent] {
        parts.flatMap { $0 }
    }

    /// The configuration: the defaults with every component applied in order.
    public static func buildFinalResult(_ parts: [any ConfigurationComponent]) -> Configuration {
        var configuration = Configuration()
        for part in parts { part.apply(to: &configuration) }
        return configuration
    }
}
