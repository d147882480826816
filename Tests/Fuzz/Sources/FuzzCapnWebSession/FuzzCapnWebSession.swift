import FuzzSupport

/// libFuzzer's entry: feeds one input to a server session as a sequence of frames and checks
/// how the session ends (see ``SessionRun``); a broken property traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    SessionRun.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum CapnWebSessionFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
