internal import CapnWebCore
/// Why the server refused an HTTP batch (answered with 500).
struct BatchRequestError: Error, CustomStringConvertible {
    let description: String
}
