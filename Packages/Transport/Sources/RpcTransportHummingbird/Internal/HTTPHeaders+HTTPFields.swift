import HTTPTypes
import NIOHTTP1

extension HTTPHeaders {
    /// The fields of a Hummingbird request or response, in order.
    init(_ fields: HTTPFields) {
        self.init()
        for field in fields {
            add(name: field.name.rawName, value: field.value)
        }
    }
}

extension HTTPFields {
    /// Our headers as fields, in order; a name HTTP does not allow is left out, as are the
    /// ones the server writes itself (`content-length`, `connection`, `transfer-encoding`).
    init(_ headers: HTTPHeaders) {
        self.init()
        for (name, value) in headers {
            switch name.lowercased() {
            case "content-length", "connection", "transfer-encoding": continue
            default: break
            }
            guard let fieldName = HTTPField.Name(name) else { continue }
            append(HTTPField(name: fieldName, value: value))
        }
    }
}
