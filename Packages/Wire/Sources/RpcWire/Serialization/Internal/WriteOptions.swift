/// How ``JSONWriter`` writes a whole ``JSONValue``.
struct WriteOptions {
    /// Whether object members are written in canonical key order.
    var canonical: Bool
    /// How many arrays and objects may nest.
    var maxDepth: Int
    /// Whether a non-finite double is written as `null` instead of failing.
    var writesNonFiniteAsNull: Bool

    init(canonical: Bool, maxDepth: Int, writesNonFiniteAsNull: Bool = false) {
        self.canonical = canonical
        self.maxDepth = maxDepth
        self.writesNonFiniteAsNull = writesNonFiniteAsNull
    }

    init(configuration: JSONSerializer.Configuration) {
        self.init(canonical: configuration.canonical, maxDepth: configuration.maxDepth)
    }
}
