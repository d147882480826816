import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import RpcTesting

/// The application's request context: Hummingbird's, with WebSocket routing and the user the
/// auth middleware found.
struct AppRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<AppRequestContext>
    /// The authenticated user; set by ``BearerAuthMiddleware``.
    var user: String?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
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
            throw HTTPError(.unauthorized)
        }
        var context = context
        context.user = user
        return try await next(request, context)
    }
}
