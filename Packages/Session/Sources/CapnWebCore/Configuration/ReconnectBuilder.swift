/// Collects the settings of a ``Reconnect`` block.
///
/// ```swift
/// Reconnect {
///     MaxAttempts(10)
///     Backoff(.exponential(base: .seconds(1), max: .seconds(30)))
/// }
/// ```
@resultBuilder
public enum ReconnectBuilder {
    /// One setting.
    public static func buildExpression(_ component: some ReconnectComponent) -> [any ReconnectComponent] {
        [component]
    }

    /// The settings of a block, in order.
    public static func buildBlock(_ parts: [any ReconnectComponent]...) -> [any ReconnectComponent] {
        parts.flatMap { $0 }
    }

    /// The settings of an `if` without `else`.
    public static func buildOptional(_ part: [any ReconnectComponent]?) -> [any ReconnectComponent] {
        part ?? []
    }

    /// The settings of the first branch of an `if`/`else`.
    public static func buildEither(first part: [any ReconnectComponent]) -> [any ReconnectComponent] {
        part
    }

    /// The settings of the second branch of an `if`/`else`.
    public static func buildEither(second part: [any ReconnectComponent]) -> [any ReconnectComponent] {
        part
    }
}
