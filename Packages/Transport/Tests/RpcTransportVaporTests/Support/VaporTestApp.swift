import Vapor

/// A real Vapor application on 127.0.0.1 and a port the system picks, for the time of a test.
enum VaporTestApp {
    /// The server did not report the port it listens on.
    struct NoPort: Error {}

    /// Makes an application, lets `configure` add its routes and middleware, starts its HTTP
    /// server, runs `body` with the application and its port, then shuts the server and the
    /// application down (also when `body` throws).
    static func run<T>(
        configure: (Application) throws -> Void,
        _ body: (Application, Int) async throws -> T
    ) async throws -> T {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        let outcome: Result<T, any Error>
        do {
            try configure(app)
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            guard let port = app.http.server.shared.localAddress?.port else { throw NoPort() }
            outcome = .success(try await body(app, port))
        } catch {
            outcome = .failure(error)
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
        return try outcome.get()
    }
}

/// Lets through only requests that carry `Authorization: Bearer secret`; refuses the others
/// with 401 before any route sees them.
struct BearerTokenMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard request.headers.bearerAuthorization?.token == "secret" else {
            throw Abort(.unauthorized)
        }
        return try await next.respond(to: request)
    }
}
