/// Collects the settings of a ``TLS`` block.
@resultBuilder
public enum TLSBuilder {
    /// One setting.
    public static func buildExpression(_ component: some TLSComponent) -> [any TLSComponent] {
        [component]
    }

    /// The settings of a block, in order.
    public static func buildBlock(_ parts: [any TLSComponent]...) -> [any TLSComponent] {
        parts.flatMap { $0 }
    }

    /// The settings of an `if` without `else`.
    public static func buildOptional(_ part: [any TLSComponent]?) -> [any TLSComponent] {
        part ?? []
    }

    /// The settings of the first branch of an `if`/`else`.
    public static func buildEither(first part: [any TLSComponent]) -> [any TLSComponent] {
        part
    }

    /// The settings of the second branch of an `if`/`else`.
    public static func buildEither(second part: [any TLSComponent]) -> [any TLSComponent] {
        part
    }
}
