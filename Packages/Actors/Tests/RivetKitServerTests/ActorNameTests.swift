import Foundation
import RivetKit
import Testing

#if canImport(SwiftUI)
import SwiftUI

/// On Apple platforms RivetKit's `@Actor` property wrapper and Swift's `Actor` protocol side
/// by side: unqualified, `Actor` is RivetKit's (it shadows the protocol), so the protocol is
/// spelled `_Concurrency.Actor`. This compiles only while both spellings resolve so.
struct BothActorNamesView: View {
    @Actor("counter", key: "names") var counter
    @RivetKit.Actor("counter", key: ["names", "qualified"]) var qualified

    var body: some View {
        Text("\(counter.hash) \(qualified.hash)")
    }
}

/// A type named by RivetKit's wrapper, and the protocol in the same declaration.
func bothActorNames(_ wrapper: RivetKit.Actor.Type, isolation: isolated (any _Concurrency.Actor)? = #isolation) {}
#else
/// Elsewhere RivetKit exports no `Actor` (its wrapper is a SwiftUI `DynamicProperty`), so the
/// bare name is still the protocol; RivetKit's sources spell it `_Concurrency.Actor` all the
/// same, which the scan below checks.
func bareActorIsTheProtocol(_ actor: any Actor) -> any _Concurrency.Actor { actor }  // The bare name, on purpose.
#endif

/// An actor of the application's own, for an isolation that is not the main actor.
actor ActorNameTally {
    /// Counts with a scoped client, isolated to this actor through the package's
    /// `isolation: isolated (any _Concurrency.Actor)?` parameters.
    func count(through transports: ClientTransports) async throws -> JSONValue {
        let config = ClientConfig(endpoint: "http://in-process", disableMetadataLookup: true)
        return try await RivetKitClient.withClient(config, transports: transports) { client in
            try await client.getOrCreate("counter", key: ["names"]).withConnection { connection in
                try await connection.action("increment", args: [2])
            }
        }
    }
}

@Suite("RivetKit's Actor and Swift's Actor protocol side by side")
struct ActorNameTests {
    @Test("The package's isolated parameters take an actor of the application's own")
    func isolatedToAnotherActor() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { server in
            let count = try await ActorNameTally().count(through: server.transports)
            #expect(count == 2)
        }
    }

    @Test("No source of the package names the protocol as a bare Actor, which RivetKit's @Actor shadows on Apple platforms")
    func sourcesQualifyTheProtocol() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let pattern = try NSRegularExpression(pattern: #"\b(any|some|isolated)\s+\(?\s*Actor\b|[:,&<]\s*Actor\b|\bActor\s*[&>]"#)
        var scanned = 0
        var offenders: [String] = []
        for folder in ["Sources", "Tests"] {
            let root = package.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                scanned += 1
                let text = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.contains("// The bare name, on purpose.") {
                    // Code only: what follows `//` (comments, documentation) is not compiled.
                    let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0])
                    let range = NSRange(code.startIndex..., in: code)
                    if pattern.firstMatch(in: code, range: range) != nil {
                        offenders.append("\(file.lastPathComponent):\(number + 1): \(line)")
                    }
                }
            }
        }
        #expect(scanned > 50)
        #expect(offenders == [])
    }
}
