extension RefExpression {
    /// The expression's path without its arguments, the name its calls are measured and traced
    /// under: `.users.get(id: "1").name` is `users.get.name`, `.square(n: 2)` is `square`.
    /// Subscripts and indexes are `[]` (their keys are data, not names), a map is `.map`, and the
    /// root alone is `root`.
    var methodName: String {
        let path = self.path
        if path.hasPrefix(".") { return String(path.dropFirst()) }
        return path.isEmpty ? "root" : path
    }

    private var path: String {
        switch self {
        case .root: return ""
        case .mapInput: return "$"
        case .failed: return "<invalid>"
        case .member(let base, let name, let subscripted):
            return base.path + (subscripted ? "[]" : ".\(name)")
        case .index(let base, _):
            return base.path + "[]"
        case .call(let base, _):
            return base.path
        case .map(let base, _), .preparedMap(let base, _, _):
            return base.path + ".map"
        }
    }
}
