/// Collects the ``Header`` values of a ``Headers`` block.
@resultBuilder
public enum HeadersBuilder {
    /// One header.
    public static func buildExpression(_ header: Header) -> [Header] {
        [header]
    }

    /// The headers of a block, in order.
    public static func buildBlock(_ parts: [Header]...) -> [Header] {
        parts.flatMap { $0 }
    }

    /// The headers of an `if` without `else`.
    public static func buildOptional(_ part: [Header]?) -> [Header] {
        part ?? []
    }

    /// The headers of the first branch of an `if`/`else`.
    public static func buildEither(first part: [Header]) -> [Header] {
        part
    }

    /// The headers of the second branch of an `if`/`else`.
    public static func buildEither(second part: [Header]) -> [Header] {
        part
    }

    /// The headers of a `for` loop.
    public static func buildArray(_ parts: [[Header]]) -> [Header] {
        parts.flatMap { $0 }
    }
}
