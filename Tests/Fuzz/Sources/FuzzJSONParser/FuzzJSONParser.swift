import FuzzSupport

/// libFuzzer's entry: checks the JSON parser and serializer on one input
/// (see ``JSONRoundTrip``); a broken property traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    JSONRoundTrip.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum JSONParserFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
