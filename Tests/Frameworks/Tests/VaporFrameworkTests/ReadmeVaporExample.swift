import CapnWebVapor
import RivetKitServer
import RivetKitVapor
import TinyvexServer
import TinyvexVapor
import Vapor

/// The README's Vapor example ("In a Vapor application"), as written there: the tests run the
/// application it configures.
func mountAsInReadme(_ app: Application, gateway: ActorGateway, tinyvex: TinyvexServer) {
    let guarded = app.grouped(TokenAuthenticator(), User.guardMiddleware())
    guarded.addCapnWeb("rpc") { request in Api(user: try request.auth.require(User.self).name) }
    guarded.addRivetKit("rivet", gateway: gateway)
    guarded.addTinyvex("tinyvex", server: tinyvex) { request, _ in request.auth.get(User.self)?.name }
}
