import CapnWeb

/// `api.invitations`: `create(email)` returns the invitation `{code, email}` with the steps of
/// the onboarding workflow as function members, so the whole workflow pipelines:
/// `create(email).waitForAcceptance().createDefaultProfile().sendWelcomeEmail().result` is
/// `{user, profile}`. The demo accepts invitations at once, creating the user from the email.
final class InvitationsService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "create" else { throw RpcErrorValue.notAFunction("invitations.\(method)") }
        let email = try ArgumentReader(arguments, method: "invitations.create").text(0, maxLength: store.limits.maxTextLength)
        let code = store.createInvitation(email: email)
        let store = self.store
        let accept = RpcFunction { _ in try Self.accepted(store: store, code: code) }
        return .object([.init("code", .string(code)), .init("email", .string(email)), .init("waitForAcceptance", .stub(RpcStub(accept)))])
    }

    /// `{user, createDefaultProfile}` once invitation `code` is accepted.
    private static func accepted(store: TodoStore, code: String) throws -> RpcPayload {
        let user = try store.acceptInvitation(code)
        let createProfile = RpcFunction { _ in
            let profile = try store.updateProfile(user.id, bio: "New here.", preferences: ["theme": "system", "language": "en"])
            let welcome = RpcFunction { _ in
                _ = try EmailsService.sendWelcome(store: store, userID: user.id)
                return .object([
                    .init("sent", true),
                    .init("result", .object([.init("user", try RpcPayload(encoding: user)), .init("profile", try RpcPayload(encoding: profile))])),
                ])
            }
            return .object([
                .init("user", try RpcPayload(encoding: user)), .init("profile", try RpcPayload(encoding: profile)),
                .init("sendWelcomeEmail", .stub(RpcStub(welcome))),
            ])
        }
        return .object([.init("user", try RpcPayload(encoding: user)), .init("createDefaultProfile", .stub(RpcStub(createProfile)))])
    }
}
