import CapnWebHummingbird
import Foundation
import Hummingbird
import RpcTransportHummingbird
import NIOHTTP1
import RivetKitHummingbird
import RivetKitServer
import RpcTransportNIO
import Testing
import TinyvexHummingbird
import TinyvexServer

// The README's "In a Hummingbird application" example, as written there: the routes and the
// application. `AppRequestContext`, `BearerAuthMiddleware` and `Api` are the application's own
// (here, those of this target).

func makeRouter(gateway: ActorGateway, tinyvex: TinyvexServer) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: BearerAuthMiddleware())          // sets context.user, or answers 401
    router.get("/health") { _, _ in "ok" }
    router.addCapnWeb("/rpc") { request, context in Api(user: context.user ?? "guest") }
    router.addRivetKit("/rivet", gateway: gateway)
    router.addTinyvex("/tinyvex", server: tinyvex) { token, request, context in context.user }
    return router
}

func runApplication(registry: ActorRegistry, schema: TinyvexSchema) async throws {
    try await withActorGateway(registry: registry, store: try SQLiteActorStore(path: "actors.sqlite")) { gateway in
        try await TinyvexServer.withEmbeddedServer(schema: schema) { tinyvex in
            let router = makeRouter(gateway: gateway, tinyvex: tinyvex)
            let app = Application(
                router: router,
                server: .http1WebSocketTransports(webSocketRouter: router),
                configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
            try await app.runService()
        }
    }
}

@Suite("The README's Hummingbird example")
struct ReadmeHummingbirdExampleTests {
    @Test("the README's router answers its ordinary route and its Cap'n Web batch for an authenticated user")
    func readmeRouter() async throws {
        try await TinyvexServer.withEmbeddedServer(schema: MountedApplication.schema) { tinyvex in
            try await withActorGateway(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory()) { gateway in
                try await withRunningApplication(router: makeRouter(gateway: gateway, tinyvex: tinyvex)) { port in
                    let client = try HTTPClient(baseURL: "http://127.0.0.1:\(port)")
                    let health = try await client.execute(
                        HTTPClientRequest(method: .GET, path: "/health", headers: ["authorization": "Bearer alice-token"]))
                    #expect(health.text == "ok")
                    let batch = try await client.execute(
                        HTTPClientRequest(
                            method: .POST, path: "/rpc", headers: ["authorization": "Bearer bob-token"],
                            body: Array(#"["push",["pipeline",0,["whoami"],[]]]"#.utf8) + [10] + Array(#"["pull",1]"#.utf8)))
                    #expect(batch.text == #"["resolve",1,"bob"]"#)
                    await client.close()
                }
            }
        }
    }
}
