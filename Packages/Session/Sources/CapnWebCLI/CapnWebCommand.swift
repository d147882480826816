public import ArgumentParser

/// The `capnweb` command: `serve --demo` runs the conformance test API, `call` calls a server.
///
/// A library, so that the tests reach the subcommands; the `capnweb` executable only runs it.
public struct CapnWebCommand: AsyncParsableCommand {
    /// The command's name, summary and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "capnweb",
        abstract: "Serve the Cap'n Web conformance API, or call a Cap'n Web server.",
        subcommands: [ServeCommand.self, CallCommand.self]
    )

    /// Creates the command (ArgumentParser fills in the subcommand it parsed).
    public init() {}
}
