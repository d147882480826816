#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Observation
import RpcDo
import RpcDoTodo
import Testing

// The logic of the seed's SwiftUI apps and views ("Environment-Based Session Injection",
// "Platform Integration"), run without SwiftUI: each `.task` body and each app's `connect` or
// `reconnect` is here as a method of an `@Observable` model standing for the view or app, with
// the seed's lines unchanged inside. The views themselves are in SwiftUIExamples.swift, which
// compiles where SwiftUI exists.

struct DailySummary: Codable, Sendable {
    var completedTasks: Int
    var pendingTasks: Int
    var nextTask: Todo?
}

/// The seed's `MyApp` (environment injection): its state and `connect()`.
/// Adapted: the URL is the demo server's; `Error` is written `any Error`.
@MainActor
@Observable
final class MyAppModel {
    var client: RpcClient?
    var isConnecting = true
    var connectionError: (any Error)?
    let url: String  // Added: the seed's "wss://api.example.com".

    init(url: String) {
        self.url = url
    }

    func connect() async {
        isConnecting = true
        connectionError = nil

        do {
            let newClient = try RpcClient(url: url)
            try await newClient.connect()
            client = newClient
        } catch {
            connectionError = error
        }

        isConnecting = false
    }
}

/// The seed's `ProfileView`: its state and its `.task`.
@MainActor
@Observable
final class ProfileViewModel {
    var client: RpcClient?  // @Environment(\.rpcClient)
    var user: User?

    func task() async {
        guard let client else { return }
        user = try? await client.api.users.current
    }
}

/// The seed's watchOS `ContentView`: its state and its `.task`.
@MainActor
@Observable
final class WatchContentModel {
    var client: RpcClient?  // @Environment(\.rpcClient)
    var summary: DailySummary?

    func task() async {
        summary = try? await client?.api.dashboard.dailySummary
    }
}

/// The seed's macOS `MyMacApp`: its state and `reconnect()`.
/// Adapted: the URL is the demo server's.
@MainActor
@Observable
final class MacAppModel {
    var client: RpcClient?
    var connectionStatus: ConnectionStatus = .disconnected
    let url: String  // Added.

    enum ConnectionStatus {
        case disconnected
        case connecting
        case connected
    }

    init(url: String) {
        self.url = url
    }

    var statusText: String {
        switch connectionStatus {
        case .disconnected: return "Disconnected"
        case .connecting: return "Connecting..."
        case .connected: return "Connected"
        }
    }

    func reconnect() async {
        connectionStatus = .connecting

        await client?.disconnect()
        client = nil

        do {
            let newClient = try RpcClient(url: url)
            try await newClient.connect()
            client = newClient
            connectionStatus = .connected
        } catch {
            connectionStatus = .disconnected
        }
    }
}

@Suite("Seed examples: the logic of the SwiftUI apps and views")
@MainActor
struct PlatformExamples {
    @Test("the app connects and injects a client; a view's .task reads the current user through it")
    func environmentInjection() async throws {
        try await withDemoServer { url, _ in
            let app = MyAppModel(url: url)
            await app.connect()
            #expect(app.isConnecting == false && app.connectionError == nil)
            let client = try #require(app.client)

            let profile = ProfileViewModel()
            await profile.task()  // no client in the environment: nothing happens
            #expect(profile.user == nil)
            profile.client = client  // .environment(\.rpcClient, client)
            await profile.task()
            #expect(profile.user?.id == "123")

            let failing = MyAppModel(url: "https://api.example.com")
            await failing.connect()
            #expect(failing.client == nil && failing.connectionError is RpcError)
            await client.disconnect()
        }
    }

    @Test("watchOS: a shorter-timeout client's .task reads the daily summary through an optional client")
    func watchSummary() async throws {
        try await withDemoServer { url, _ in
            // Use shorter timeout for watch
            let config = RpcClientConfiguration(
                url: try #require(URL(string: url)),
                timeout: 15.0,  // Shorter for watch
                maxRetries: 2
            )
            let client = RpcClient(configuration: config)
            try await client.connect()
            let content = WatchContentModel()
            content.client = client
            await content.task()
            let summary = try #require(content.summary)
            #expect(summary.completedTasks + summary.pendingTasks == 3)
            await client.disconnect()
        }
    }

    @Test("macOS: reconnect() replaces the client and reports the status")
    func macReconnect() async throws {
        try await withDemoServer { url, _ in
            let app = MacAppModel(url: url)
            await app.reconnect()
            #expect(app.statusText == "Connected")
            let first = try #require(app.client)
            await app.reconnect()
            let second = try #require(app.client)
            #expect(first !== second)
            #expect(await first.isConnected == false)
            #expect(await second.isConnected)
            await second.disconnect()
        }
    }
}
