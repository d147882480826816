import FuzzSupport

/// libFuzzer's entry: feeds one input to a Tinyvex server connection as a sequence of JSON-RPC
/// frames and checks that the connection ends (see ``TinyvexRun``); a broken property traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    TinyvexRun.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum TinyvexMessagesFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
