import ArgumentParser

/// The `capnweb` command.
@main
struct CapnWebTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capnweb",
        abstract: "Serve the Cap'n Web conformance API, or call a Cap'n Web server."
    )

    func run() async throws {}
}
