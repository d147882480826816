internal import CapnWeb

/// One argument of a recorded call.
struct RefArgument: Sendable {
    enum Value: Sendable {
        case payload(RpcPayload, text: String)
        case ref(RefExpression)
        case failed(RpcError)
    }

    let label: String
    let value: Value

    var failure: RpcError? {
        switch value {
        case .payload: nil
        case .ref(let expression): expression.failure
        case .failed(let error): error
        }
    }

    var text: String {
        switch value {
        case .payload(_, let text): text
        case .ref(let expression): expression.text(root: "api")
        case .failed: "<invalid>"
        }
    }

    init(label: String, prepared value: Value) {
        self.label = label
        self.value = value
    }

    /// Converts a Swift argument: a ref, an ``RpcValue`` or any `Encodable` value; `nil` is
    /// sent as `null`.
    init(label: String, value argument: RpcArgument) {
        self.label = label
        let value: any Sendable = argument ?? RpcValue.null
        if let ref = value as? any RefExpressible {
            self.value = .ref(ref.refExpression)
            return
        }
        guard let encodable = value as? any Encodable else {
            self.value = .failed(.invalidArgument("\(type(of: value)) is neither Encodable nor an RpcRef"))
            return
        }
        do {
            let payload = try RpcPayload(encoding: encodable)
            let text = ValueConversion.text((try? payload.decode(RpcValue.self)) ?? .from(value))
            self.value = .payload(payload, text: text)
        } catch {
            self.value = .failed(.invalidArgument("\(type(of: value)) cannot be sent: \(error)"))
        }
    }
}
