import ArgumentParser
import RivetKitPostgres
import RivetKitServer
import RpcDoPrometheus

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `rivetkit serve --demo`: serves the demo registry (counter, chat, forwarder) until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the demo actors (counter, chat, forwarder) over RivetKit's protocol.",
        discussion: """
            Prints 'READY <endpoint>' on standard output once listening, and runs until SIGINT or \
            SIGTERM, then shuts down gracefully: it stops accepting, lets the actions in flight \
            finish (10 seconds at most), closes the remaining connections with 1001 and exits 0. \
            With --metrics-port, Prometheus metrics are served at GET /metrics. Actors are kept in the SQLite file of --database, in the PostgreSQL database of \
            --postgres, or in memory without either. With --postgres, one server serves a database \
            unless each is given a --node-id: several servers with node ids on one database form a \
            cluster, and a request for any actor may go to any of them.
            """
    )

    @Flag(help: "Serve the demo registry: counter, chat and forwarder; required.")
    var demo = false

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port.")
    var port = 6420

    @Option(help: "A token every request must carry.")
    var token: String?

    @Option(help: "The SQLite file the actors are kept in, so that they survive a restart.")
    var database: String?

    @Option(help: "A PostgreSQL URL (postgres://user[:password]@host[:port]/database) to keep the actors in.")
    var postgres: String?

    @Option(help: "This server's node name, with --postgres: the servers of one database form a cluster, each awake actor owned by one node, any node forwarding requests to the owner.")
    var nodeId: String?

    @Option(help: "Seconds an actor's lease lasts unless renewed, with --node-id; a dead node's actors wake elsewhere after it.")
    var leaseDuration: Double = 10

    @Option(help: "The endpoint other nodes forward requests to (default: http://HOST:PORT as listening).")
    var advertise: String?

    @Option(help: "Seconds an actor with no connection and no request stays in memory before it sleeps.")
    var sleepTimeout: Double = 30

    @Option(name: .customLong("metrics-port"), help: "Serve Prometheus metrics at GET /metrics on this port of --host (0 picks a free one); prints 'METRICS <url>' once listening.")
    var metricsPort: Int?


    func validate() throws {
        guard demo else {
            throw ValidationError("only '--demo' is supported: 'rivetkit serve --demo'")
        }
        guard (0 ... 65535).contains(port) else {
            throw ValidationError("the port must be between 0 and 65535")
        }
        if let metricsPort, !(0 ... 65535).contains(metricsPort) {
            throw ValidationError("the metrics port must be between 0 and 65535")
        }
        guard database == nil || postgres == nil else {
            throw ValidationError("give --database or --postgres, not both")
        }
        if let postgres {
            do {
                _ = try PostgresURL(postgres)
            } catch {
                throw ValidationError("--postgres: \(error)")
            }
        }
        guard nodeId == nil || postgres != nil else {
            throw ValidationError("--node-id needs --postgres: the nodes of a cluster share one database")
        }
        if let nodeId, nodeId.isEmpty || nodeId.utf8.count > 256 {
            throw ValidationError("the node id must be 1 to 256 bytes")
        }
        guard leaseDuration.isFinite, (1 ... 3_600).contains(leaseDuration) else {
            throw ValidationError("the lease duration must be between 1 and 3600 seconds")
        }
        guard sleepTimeout.isFinite, (0.01 ... 86_400).contains(sleepTimeout) else {
            throw ValidationError("the sleep timeout must be between 0.01 and 86400 seconds")
        }
    }

    func run() async throws {
        var configuration = ActorServerConfiguration(host: host, port: port)
        configuration.token = token
        configuration.sleepTimeout = .milliseconds(Int64((sleepTimeout * 1000).rounded()))
        configuration.advertisedEndpoint = advertise
        if let postgres {
            let lease = Duration.milliseconds(Int64((leaseDuration * 1000).rounded()))
            try await PostgresActorStore.withStore(url: postgres, node: nodeId, leaseDuration: lease) { store in
                try await serve(store: store, configuration: configuration)
            }
        } else {
            let store: any ActorStore = try database.map { try SQLiteActorStore(path: $0) } ?? SQLiteActorStore.inMemory()
            try await serve(store: store, configuration: configuration)
        }
    }

    /// Serves under a `ServiceGroup` (with the metrics endpoint, if asked) until `SIGTERM` or
    /// `SIGINT` has shut the server down gracefully.
    private func serve(store: any ActorStore, configuration: ActorServerConfiguration) async throws {
        let server = ActorServerService(registry: DemoActors.registry, store: store, configuration: configuration) { server in
            print("READY \(server.endpoint)")
            fflush(nil)
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        try await CommandServiceGroup.run(server, metricsPort: metricsPort, metricsHost: configuration.host) { port in
            print("METRICS http://\(host):\(port)/metrics")
            fflush(nil)
        }
    }
}
