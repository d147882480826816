import FuzzSupport
import RivetKit

/// libFuzzer's entry: one input is one RivetKit JSON frame, read both as a client message (what
/// the actor server reads, through its compact reader first) and as a server message (what the
/// client reads). Reading never traps; a frame that reads writes back, and what it writes reads
/// back to a message that writes the same bytes again. The same holds for the bodies of the
/// HTTP action endpoint.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let what = { "after the frame \(Excerpt.of(bytes))" }

    if let message = try? RivetMessageCodec.decodeClientMessage(utf8: bytes) {
        let written = RivetMessageCodec.encode(message)
        guard let again = try? RivetMessageCodec.decodeClientMessage(written) else {
            preconditionFailure("the client message \(message) wrote \(Excerpt.of(written)), which does not read back, \(what())")
        }
        precondition(RivetMessageCodec.encode(again) == written, "a client message writes differently once read back, \(what())")
    }
    if let message = try? RivetMessageCodec.decodeServerMessage(utf8: bytes) {
        let written = RivetMessageCodec.encode(message)
        guard let again = try? RivetMessageCodec.decodeServerMessage(written) else {
            preconditionFailure("the server message \(message) wrote \(Excerpt.of(written)), which does not read back, \(what())")
        }
        precondition(RivetMessageCodec.encode(again) == written, "a server message writes differently once read back, \(what())")
    }
    if let args = try? RivetMessageCodec.decodeActionRequestBody(bytes) {
        let written = RivetMessageCodec.encodeActionRequestBody(args: args)
        guard let again = try? RivetMessageCodec.decodeActionRequestBody(Array(written.utf8)) else {
            preconditionFailure("action arguments wrote \(Excerpt.of(written)), which does not read back, \(what())")
        }
        precondition(
            RivetMessageCodec.encodeActionRequestBody(args: again) == written, "action arguments write differently once read back, \(what())")
    }
    if let output = try? RivetMessageCodec.decodeActionResponseBody(bytes) {
        let written = RivetMessageCodec.encodeActionResponseBody(output: output)
        guard let again = try? RivetMessageCodec.decodeActionResponseBody(Array(written.utf8)) else {
            preconditionFailure("an action output wrote \(Excerpt.of(written)), which does not read back, \(what())")
        }
        precondition(
            RivetMessageCodec.encodeActionResponseBody(output: again) == written, "an action output writes differently once read back, \(what())")
    }
    _ = RivetMessageCodec.decodeErrorBody(bytes)
    return 0
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum RivetFramesFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
