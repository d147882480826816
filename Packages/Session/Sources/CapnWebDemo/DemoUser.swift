public import CapnWebCore

/// The conformance API's `User`: property `profile` = `{displayName: "User <id>", id}`,
/// property `id`, and methods `getProfile()` (the same object) and `getName()`.
public final class DemoUser: RpcTarget {
    /// The user's ID, as the caller gave it.
    public let id: RpcPayload

    /// A user with the given ID.
    public init(id: RpcPayload) {
        self.id = id
    }

    /// `"User <id>"`.
    public var displayName: String {
        "User \(DemoNumber.text(id))"
    }

    /// `{displayName, id}`.
    public var profile: RpcPayload {
        .object([RpcPayload.Member("displayName", .string(displayName)), RpcPayload.Member("id", id)])
    }

    /// `getProfile()` and `getName()`, answered at once; any other method rejects with a
    /// `TypeError`.
    public func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        switch method {
        case "getProfile": profile
        case "getName": .string(displayName)
        default: throw RpcErrorValue.notAFunction(method)
        }
    }

    /// `profile` and `id`, read at once; any other property is `undefined`.
    public func propertyImmediately(_ name: String) throws -> RpcPayload? {
        switch name {
        case "profile": profile
        case "id": id
        default: .undefined
        }
    }
}
