import CapnWebCLI
import ArgumentParser

/// The `capnweb` executable: runs ``CapnWebCommand``.
@main
enum CapnWebTool {
    static func main() async {
        await CapnWebCommand.main()
    }
}
