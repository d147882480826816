import Foundation
import TinyvexPostgres
import TinyvexServer

/// Tinyvex on PostgreSQL (the database `RPC_POSTGRES_URL` names), in the same run as the SQLite
/// figures: the mutation flood on one node and spread over three nodes of one database, and the
/// fan-out of a commit on node A to 1,000 connections spread over the three nodes against the
/// same 1,000 connections all on node A, the rounds of the two taking turns on the same servers.
/// Prints `ratio tinyvex-cluster-fanout-vs-single X.XX` (the cluster's p50 over the single
/// node's; the goal is 2.0 or less).
enum ClusterSide {
    /// The database, when one is given.
    static var url: String? {
        ProcessInfo.processInfo.environment["RPC_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Runs the PostgreSQL measurements and prints them; `rounds` 0 stops after the mutations.
    static func run(url: String, mutations: Int, connections: Int, rounds: Int) async throws {
        // The database outlives the run: every run writes channels of its own.
        let run = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0 ... .max))"
        let one = try await withNodes(url: url, names: ["bench-\(run)-solo"]) { urls in
            try await TinyvexBenchmarks.drive(urls: urls, mutations: mutations, channelPrefix: "one-\(run)-")
        }
        let names = ["a", "b", "c"].map { "bench-\(run)-\($0)" }
        try await withNodes(url: url, names: names[...]) { urls in
            let three = try await TinyvexBenchmarks.drive(urls: urls, mutations: mutations, channelPrefix: "three-\(run)-")
            print(String(
                format: "mutations/s on PostgreSQL with 100 live subscriptions: one node %.0f, three nodes of one database %.0f",
                one.perSecond, three.perSecond))
            guard rounds > 0 else { return }
            // Rounds in slices taking turns, so a drift of the machine lands on both sides.
            var single: [Duration] = []
            var cluster: [Duration] = []
            let slices = 4
            for slice in 0..<slices {
                let count = rounds / slices
                single += try await TinyvexBenchmarks.fanout(
                    receiving: [urls[0]], sending: urls[0], channel: "fan-one-\(run)-\(slice)", connections: connections, rounds: count)
                cluster += try await TinyvexBenchmarks.fanout(
                    receiving: urls, sending: urls[0], channel: "fan-three-\(run)-\(slice)", connections: connections, rounds: count)
            }
            let alone = TinyvexBenchmarks.percentiles(single)
            let spread = TinyvexBenchmarks.percentiles(cluster)
            print(String(
                format: "PostgreSQL, mutation on node A to %d connections on node A: p50 %.3f ms, p99 %.3f ms",
                connections, alone.p50 * 1000, alone.p99 * 1000))
            print(String(
                format: "PostgreSQL, mutation on node A to %d connections spread over nodes A, B and C: p50 %.3f ms, p99 %.3f ms",
                connections, spread.p50 * 1000, spread.p99 * 1000))
            print(String(format: "ratio tinyvex-cluster-fanout-vs-single %.2f", spread.p50 / alone.p50))
        }
    }

    /// Runs `body` with one Tinyvex server per name, all nodes of one cluster on `url`'s
    /// database, given their WebSocket URLs in the order of `names`.
    static func withNodes<T>(
        url: String, names: ArraySlice<String>, started: [String] = [],
        isolation: isolated (any Actor)? = #isolation,
        _ body: ([String]) async throws -> T
    ) async throws -> T {
        guard let name = names.first else { return try await body(started) }
        return try await TinyvexPostgres.withDatabase(url: url, node: name) { database in
            try await TinyvexServer.withServer(
                schema: TinyvexDemoSchema.schema(), database: database,
                configuration: TinyvexBenchmarks.serverConfiguration, port: 0
            ) { server in
                try await withNodes(url: url, names: names.dropFirst(), started: started + [server.url], body)
            }
        }
    }
}
