import ArgumentParser

/// The `rivetkit` command: `serve --demo` runs the actor server with the demo registry.
@main
struct RivetKitTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rivetkit",
        abstract: "Run a RivetKit actor server that RivetKit clients can use.",
        subcommands: [ServeCommand.self]
    )
}
