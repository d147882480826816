import RpcWire

/// Entry point of the `rpcwire` command.
@main
enum RpcWireTool {
    static func main() {
        print("rpcwire: not yet implemented")
    }
}
