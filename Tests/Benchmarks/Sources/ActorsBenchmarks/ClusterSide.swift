import BenchmarkSupport
import Foundation
import RivetKit
import RivetKitPostgres
import RivetKitServer

/// Two nodes on one PostgreSQL database (the one `RPC_POSTGRES_URL` names): actions per second,
/// 64 in flight on one realtime connection, to the node that owns the actor and through the
/// other node, which forwards the connection to the owner.
enum ClusterSide {
    struct Result {
        var directPerSecond: Double
        var forwardedPerSecond: Double
    }

    /// The database, when one is given.
    static var url: String? {
        ProcessInfo.processInfo.environment["RPC_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func measure(url: String, actions: Int, run: Int) async throws -> Result {
        let key = "bench-\(ProcessInfo.processInfo.processIdentifier)-\(run)"
        return try await PostgresActorStore.withStore(url: url, node: "owner") { ownerStore in
            try await PostgresActorStore.withStore(url: url, node: "forwarder") { forwarderStore in
                var configuration = ActorServerConfiguration(port: 0)
                configuration.maxActionsInFlightPerConnection = 128
                return try await withActorServer(registry: DemoActors.registry, store: ownerStore, configuration: configuration) {
                    owner in
                    try await withActorServer(
                        registry: DemoActors.registry, store: forwarderStore, configuration: configuration
                    ) { forwarder in
                        let direct = try await perSecond(endpoint: owner.endpoint, key: key, actions: actions)
                        let forwarded = try await perSecond(endpoint: forwarder.endpoint, key: key, actions: actions)
                        return Result(directPerSecond: direct, forwardedPerSecond: forwarded)
                    }
                }
            }
        }
    }

    /// `getCount` actions per second, 64 in flight on one connection through `endpoint` (the
    /// first request wakes the actor where it first arrives: the owner).
    private static func perSecond(endpoint: String, key: String, actions: Int) async throws -> Double {
        let client = RivetKitClient(ClientConfig(endpoint: endpoint, token: nil, namespace: nil, disableMetadataLookup: true))
        let connection = client.getOrCreate("counter", key: [key]).connect()
        connection.start()
        _ = try await connection.action("getCount", args: [])
        let perSecond = try await ActorSide.actionsPerSecond(actions, on: connection)
        await connection.dispose()
        await client.close()
        return perSecond
    }
}
