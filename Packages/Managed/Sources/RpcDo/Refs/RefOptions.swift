/// How one ref is awaited.
struct RefOptions: Sendable {
    var timeout: Duration?
    var isIdempotent = false
    var metadata: [String: String] = [:]
}
