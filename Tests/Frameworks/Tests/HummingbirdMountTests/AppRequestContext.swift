import HTTPTypes
import Hummingbird
import RpcTesting

/// The application's request context: Hummingbird's, with the user the auth middleware found.
struct AppRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The authenticated user; set by ``BearerAuthMiddleware``.
    var user: String?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}

/// The application's authentication: `authorization: Bearer <token>` names a user, anything
/// else is refused with 401 before any route runs.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The tokens the application knows, and whose they are.
    static let users = ["alice-token": "alice", "bob-token": "bob"]

    /// The paths of the requests this middleware refused.
    let refusals: Recorder<String>

    init(refusals: Recorder<String> = Recorder()) {
        self.refusals = refusals
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let value = request.headers[.authorization], value.hasPrefix("Bearer "),
            let user = Self.users[String(value.dropFirst("Bearer ".count))]
        else {
            refusals.append(request.uri.path)
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "a bearer token is required")
        }
        var context = context
        context.user = user
        return try await next(request, context)
    }
}
