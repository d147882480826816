import Foundation
import Synchronization

/// RivetKit's own TypeScript client, where it is installed: Node.js on the `PATH` and a
/// `node_modules` folder holding the `rivetkit` package, named by `RIVETKIT_CLIENT_MODULES`
/// or found at `Peers/node_modules`. The package is not vendored and CI has no registry to
/// install it from, so the tests that need it are skipped without it.
enum NodePeer {
    /// The environment variable naming the `node_modules` folder that holds `rivetkit`.
    static let modulesVariable = "RIVETKIT_CLIENT_MODULES"

    /// The `node_modules` folder holding `rivetkit`; `nil` when there is none.
    static var modules: URL? {
        let configured = ProcessInfo.processInfo.environment[modulesVariable].map { URL(fileURLWithPath: $0) }
        let folder = configured ?? InteropEnvironment.packageDirectory.appendingPathComponent("Peers/node_modules")
        let manifest = folder.appendingPathComponent("rivetkit/package.json").path
        return FileManager.default.fileExists(atPath: manifest) ? folder : nil
    }

    /// The `node` executable on the `PATH`; `nil` when there is none.
    static var node: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("node")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Whether the client and Node.js are both there.
    static var isAvailable: Bool { modules != nil && node != nil }

    /// What a script printed and how it ended.
    struct Outcome: Sendable {
        var lines: [String]
        var status: Int32
    }

    /// The script did not end within its time.
    struct TimedOut: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs the peer script `name` (in `Peers/`) with `arguments` and returns its output once it
    /// has ended; it is killed after `limit`. The script is copied beside the client's
    /// `node_modules` (in a temporary folder), where Node's module resolution finds `rivetkit`.
    static func run(_ name: String, arguments: [String], limit: Duration = .seconds(120)) async throws -> Outcome {
        guard let modules, let node else { throw TimedOut(description: "RivetKit's client is not installed") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rivetkit-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("node_modules"), withDestinationURL: modules)
        let script = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: InteropEnvironment.packageDirectory.appendingPathComponent("Peers/\(name)"), to: script)

        let process = Process()
        process.executableURL = node
        process.arguments = [script.path] + arguments
        process.currentDirectoryURL = folder
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let collected = Mutex<[UInt8]>([])
        output.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            collected.withLock { $0 += chunk }
        }
        let (ended, end) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { process in
            end.yield(process.terminationStatus)
            end.finish()
        }
        try process.run()
        let status = try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask {
                for await status in ended { return status }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let status else {
            process.terminate()
            throw TimedOut(description: "\(name) did not end within \(limit)")
        }
        output.fileHandleForReading.readabilityHandler = nil
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let text = collected.withLock { String(decoding: $0 + rest, as: UTF8.self) }
        return Outcome(lines: text.split(separator: "\n").map(String.init), status: status)
    }
}
