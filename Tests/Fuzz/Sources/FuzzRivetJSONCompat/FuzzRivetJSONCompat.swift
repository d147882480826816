import FuzzSupport
import RivetKit
import RpcWire

/// libFuzzer's entry: one input is JSON as it travels in a RivetKit frame, with the compat
/// forms (`["$BigInt","n"]`, `["$Uint8Array","b64"]`, escaped `["$$x", y]`, ...). Reading the
/// compat forms never traps; what they read as survives writing and reading again unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let wire = try? JSONParser().parse(bytes) else { return 0 }
    if let big = try? RivetJSONCompat.unsigned(wire) {
        precondition(
            (try? RivetJSONCompat.unsigned(RivetJSONCompat.bigInt(big))) == big,
            "the unsigned \(big) does not read back, after the input \(Excerpt.of(Array(bytes)))")
    }
    guard let value = try? RivetJSONCompat.decode(wire) else { return 0 }
    let encoded = RivetJSONCompat.encode(value)
    guard let again = try? RivetJSONCompat.decode(encoded) else {
        preconditionFailure("\(value) writes compat JSON that does not read back, after the input \(Excerpt.of(Array(bytes)))")
    }
    precondition(again == value, "\(value) reads back as \(again), after the input \(Excerpt.of(Array(bytes)))")
    return 0
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum RivetJSONCompatFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
