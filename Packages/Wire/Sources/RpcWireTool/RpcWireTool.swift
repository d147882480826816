import Foundation

/// Entry point of the `rpcwire` command: runs ``RpcWireCommand`` against the process's I/O.
@main
enum RpcWireTool {
    static func main() {
        let command = RpcWireCommand { file in
            if file == "-" {
                return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
            }
            return FileManager.default.contents(atPath: file).map { [UInt8]($0) }
        }
        let outcome = command.run(Array(CommandLine.arguments.dropFirst()))
        FileHandle.standardOutput.write(Data(outcome.output))
        FileHandle.standardError.write(Data(outcome.errors))
        exit(outcome.status)
    }
}
