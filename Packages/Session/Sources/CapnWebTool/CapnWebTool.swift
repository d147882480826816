import ArgumentParser

/// The `capnweb` command: `serve --demo` runs the conformance test API, `call` calls a server.
@main
struct CapnWebTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capnweb",
        abstract: "Serve the Cap'n Web conformance API, or call a Cap'n Web server.",
        subcommands: [ServeCommand.self, CallCommand.self]
    )
}
