import ArgumentParser
import Foundation
import RpcDoPrometheus
import TinyvexPostgres
import TinyvexServer

/// `tinyvex`: runs a Tinyvex server.
@main
struct TinyvexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tinyvex",
        abstract: "Live queries, mutations and actions over JSON-RPC on WebSocket, stored in SQLite or PostgreSQL.",
        subcommands: [Serve.self])
}

/// `tinyvex serve --demo`: the demo chat schema on a port, until interrupted.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the demo chat schema; prints READY <ws-url> once listening.",
        discussion: """
            Runs until SIGINT or SIGTERM, then shuts down gracefully: it stops accepting, lets the \
            requests being answered finish (10 seconds at most), closes the remaining connections \
            with 1001 and exits 0. With --metrics-port, Prometheus metrics are served at GET /metrics.
            """)

    @Flag(help: "Serve the demo chat schema (messages.list, messages.page, messages.count, channels.list, messages.send, messages.clear, messages.schedule, messages.sendLater).")
    var demo = false

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 for any free port).")
    var port = 9099

    @Option(help: "An SQLite file to keep the documents in (WAL); in memory when absent.")
    var db: String?

    @Option(help: "A PostgreSQL URL (postgres://user[:password]@host[:port]/database) to keep the documents in, instead of SQLite; servers given the same URL form one cluster.")
    var postgres: String?

    @Option(name: .customLong("metrics-port"), help: "Serve Prometheus metrics at GET /metrics on this port of --host (0 picks a free one); prints 'METRICS <url>' once listening.")
    var metricsPort: Int?

    func validate() throws {
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw ValidationError("the metrics port must be between 0 and 65535")
        }
        guard demo else {
            throw ValidationError("only --demo is available: the command serves the demo chat schema")
        }
        if db != nil, postgres != nil {
            throw ValidationError("--db and --postgres name two stores: give one")
        }
    }

    func run() async throws {
        if let postgres {
            // Every server given the same URL joins one cluster: each is a node of its own name.
            let node = "node-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            try await TinyvexPostgres.withDatabase(url: postgres, node: node) { database in try await serve(database) }
        } else {
            try await serve(db.map { .file($0) } ?? .inMemory)
        }
    }

    /// Serves under a `ServiceGroup` (with the metrics endpoint, if asked) until `SIGTERM` or
    /// `SIGINT` has shut the server down gracefully.
    private func serve(_ database: TinyvexDatabase) async throws {
        let server = TinyvexServerService(schema: TinyvexDemoSchema.schema(), database: database, host: host, port: port) { server in
            // Unbuffered, so a process reading the pipe sees the line at once.
            FileHandle.standardOutput.write(Data("READY \(server.url)\n".utf8))
        }
        let urlHost = host.contains(":") ? "[\(host)]" : host
        try await CommandServiceGroup.run(server, metricsPort: metricsPort, metricsHost: host) { port in
            FileHandle.standardOutput.write(Data("METRICS http://\(urlHost):\(port)/metrics\n".utf8))
        }
    }
}
