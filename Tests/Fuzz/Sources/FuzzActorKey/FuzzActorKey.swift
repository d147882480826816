import FuzzSupport
import RivetKit

/// libFuzzer's entry: one input is an actor key as one string (the `key` of `PUT /actors`) and,
/// at the same time, the raw `rvt-key` value of a query-gateway URL. Reading either never traps;
/// the parts a key reads as write back to a key that reads as the same parts, through both
/// forms, so two different keys can never name one actor.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let what = { "after the key \(Excerpt.of(bytes))" }

    let parts = ActorKey.deserialize(text)
    let serialized = ActorKey.serialize(parts)
    precondition(ActorKey.deserialize(serialized) == parts, "the parts \(parts) do not survive serializing, \(what())")
    checkQueryForm(parts, what)

    let queryParts = ActorKey.parts(ofQueryValue: text)
    precondition(ActorKey.deserialize(ActorKey.serialize(queryParts)) == queryParts, "the query parts \(queryParts) do not survive serializing, \(what())")
    checkQueryForm(queryParts, what)
    return 0
}

/// The query form of `parts` reads back as `parts`.
private func checkQueryForm(_ parts: [String], _ what: () -> String) {
    let roundTrip = ActorKey.queryValue(parts).map { ActorKey.parts(ofQueryValue: $0) } ?? []
    precondition(roundTrip == parts, "the parts \(parts) read back from their query form as \(roundTrip), \(what())")
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum ActorKeyFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
