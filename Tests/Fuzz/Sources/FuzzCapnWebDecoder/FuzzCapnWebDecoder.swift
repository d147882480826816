import FuzzSupport

/// libFuzzer's entry: checks the Cap'n Web codec on one input (see ``CapnWebRoundTrip``); a
/// broken property traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    CapnWebRoundTrip.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum CapnWebDecoderFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
