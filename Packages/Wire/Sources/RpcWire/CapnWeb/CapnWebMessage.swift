/// A top-level Cap'n Web message: a JSON array whose first element is a string tag.
///
/// Every ID is read from the sender's side: an import ID of the sender is an export ID of the
/// receiver, and the other way round.
///
/// ```swift
/// let call = CapnWebMessage.push(.pipeline(0, path: ["square"], arguments: [5]))
/// print(call)    // push pipeline(0, ["square"], [5])
/// ```
public enum CapnWebMessage: Sendable, Hashable {
    /// `["push", EXPR]`: evaluate EXPR on the receiver; the result becomes the sender's next
    /// positive import ID.
    case push(CapnWebExpression)
    /// `["pull", IMPORT_ID]`: ask for the result of that import as a `resolve` or `reject`.
    case pull(importID: Int64)
    /// `["resolve", EXPORT_ID, EXPR]`: the export settled with the value EXPR.
    case resolve(exportID: Int64, value: CapnWebExpression)
    /// `["reject", EXPORT_ID, EXPR]`: the export settled with the error EXPR.
    case reject(exportID: Int64, value: CapnWebExpression)
    /// `["release", IMPORT_ID, REFCOUNT]`: the sender drops its import, which was introduced to
    /// it `refcount` times.
    case release(importID: Int64, refcount: Int64)
    /// `["abort", EXPR]`: the sender ends the session because of the error EXPR.
    case abort(CapnWebExpression)
    /// `["stream", EXPR]`: like ``push(_:)``, but already pulled, not pipelined on, and dropped
    /// by the receiver once settled.
    case stream(CapnWebExpression)
    /// `["pipe"]`: ask the receiver to create a pipe; takes the sender's next positive import ID.
    case pipe

    /// The tag written as the first element, for example `"push"`.
    public var tag: String {
        switch self {
        case .push: "push"
        case .pull: "pull"
        case .resolve: "resolve"
        case .reject: "reject"
        case .release: "release"
        case .abort: "abort"
        case .stream: "stream"
        case .pipe: "pipe"
        }
    }
}

extension CapnWebMessage: CustomStringConvertible {
    /// The tag followed by its operands, for example `push pipeline(0, ["square"], [5])`,
    /// `pull 1`, `resolve 1 25`, `release 1 ×1` or `pipe`.
    public var description: String {
        switch self {
        case .push(let expression):
            "push \(expression)"
        case .pull(let importID):
            "pull \(importID)"
        case .resolve(let exportID, let value):
            "resolve \(exportID) \(value)"
        case .reject(let exportID, let value):
            "reject \(exportID) \(value)"
        case .release(let importID, let refcount):
            "release \(importID) ×\(refcount)"
        case .abort(let expression):
            "abort \(expression)"
        case .stream(let expression):
            "stream \(expression)"
        case .pipe:
            "pipe"
        }
    }
}
