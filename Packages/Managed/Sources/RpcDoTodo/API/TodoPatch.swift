import CapnWeb

/// A change to a todo, from `create(title)` or `update(...)`: a string is a title, a boolean
/// is `completed`, an object may carry both.
struct TodoPatch {
    var title: String?
    var completed: Bool?

    init(_ value: RpcPayload, method: String, maxLength: Int) throws {
        switch value {
        case .string(let text):
            title = try ArgumentReader.checked(text, method: method, maxLength: maxLength, allowEmpty: false)
        case .bool(let flag):
            completed = flag
        case .object:
            if let titleValue = value["title"], !titleValue.isNullish {
                guard case .string(let text) = titleValue else { throw TodoErrors.type("\(method): title must be a string") }
                title = try ArgumentReader.checked(text, method: method, maxLength: maxLength, allowEmpty: false)
            }
            if let completedValue = value["completed"], !completedValue.isNullish {
                guard case .bool(let flag) = completedValue else { throw TodoErrors.type("\(method): completed must be a boolean") }
                completed = flag
            }
        default:
            throw TodoErrors.type("\(method): expected a title, a completed flag or {title, completed}")
        }
    }
}
