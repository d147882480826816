import FuzzSupport
import RivetKit

/// libFuzzer's entry: one input is the CBOR of a creation input (what `PUT /actors` and the
/// gateway's `rvt-input` carry, once base64 is undone). Reading never traps; a value that reads
/// writes CBOR that reads back to a value writing the same bytes again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? RivetCBOR.decode(bytes) else { return 0 }
    let written = RivetCBOR.encode(value)
    guard let again = try? RivetCBOR.decode(written) else {
        preconditionFailure("\(value) wrote CBOR that does not read back, after the input \(Excerpt.of(bytes))")
    }
    precondition(RivetCBOR.encode(again) == written, "\(value) writes differently once read back, after the input \(Excerpt.of(bytes))")
    return 0
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum RivetCBORFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
