import ArgumentParser
import RivetKitServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `rivetkit serve --demo`: serves the demo registry (counter, chat) until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the demo actors (counter, chat) over RivetKit's protocol.",
        discussion: """
            Prints 'READY <endpoint>' on standard output once listening, and runs until SIGINT or \
            SIGTERM. Actors are kept in the SQLite file of --database (in memory without it).
            """
    )

    @Flag(help: "Serve the demo registry: counter and chat; required.")
    var demo = false

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port.")
    var port = 6420

    @Option(help: "A token every request must carry.")
    var token: String?

    @Option(help: "The SQLite file the actors are kept in, so that they survive a restart.")
    var database: String?

    @Option(help: "Seconds an actor with no connection and no request stays in memory before it sleeps.")
    var sleepTimeout: Double = 30


    func validate() throws {
        guard demo else {
            throw ValidationError("only '--demo' is supported: 'rivetkit serve --demo'")
        }
        guard (0 ... 65535).contains(port) else {
            throw ValidationError("the port must be between 0 and 65535")
        }
        guard sleepTimeout.isFinite, (0.01 ... 86_400).contains(sleepTimeout) else {
            throw ValidationError("the sleep timeout must be between 0.01 and 86400 seconds")
        }
    }

    func run() async throws {
        var configuration = ActorServerConfiguration(host: host, port: port)
        configuration.token = token
        configuration.sleepTimeout = .milliseconds(Int64((sleepTimeout * 1000).rounded()))
        let store: any ActorStore = try database.map { try SQLiteActorStore(path: $0) } ?? SQLiteActorStore.inMemory()
        try await withActorServer(registry: DemoActors.registry, store: store, configuration: configuration) { server in
            print("READY \(server.endpoint)")
            fflush(nil)
            await TerminationSignal.wait()
        }
    }
}
