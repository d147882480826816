import FuzzSupport
import RivetKit

/// libFuzzer's entry: one input is an actor key as one string (the `key` of `PUT /actors`) and,
/// at the same time, the raw `rvt-key` value of a query-gateway URL. Reading either, strictly
/// (as the server does) or leniently (as RivetKit's own reader does), never traps. A key the
/// strict reader accepts is the one text ``ActorKey/serialize(_:)`` writes for its parts, and
/// every key's parts survive a round trip through both forms, so two different keys never
/// name one actor and one key is the same actor through `PUT /actors` and the gateway.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let what = { "after the key \(Excerpt.of(bytes))" }

    if let parts = try? ActorKey.parse(serialized: text) {
        precondition(
            ActorKey.serialize(parts) == text || (text.isEmpty && parts.isEmpty),
            "the strict reader accepts \(text.debugDescription) for \(parts), which is written \(ActorKey.serialize(parts).debugDescription), \(what())")
        checkBothForms(parts, what)
    }
    if let parts = try? ActorKey.parse(queryValue: text) {
        checkBothForms(parts, what)
    }
    checkBothForms(ActorKey.deserialize(text), what)
    checkBothForms(ActorKey.parts(ofQueryValue: text), what)
    return 0
}

/// The parts survive writing and strict reading in the one-string form and in the query form.
private func checkBothForms(_ parts: [String], _ what: () -> String) {
    let serialized = ActorKey.serialize(parts)
    let fromSerialized = try? ActorKey.parse(serialized: serialized)
    precondition(fromSerialized == parts, "\(parts) is written \(serialized.debugDescription), which reads back as \(String(describing: fromSerialized)), \(what())")
    let query = ActorKey.queryValue(parts)
    let fromQuery = query.map { try? ActorKey.parse(queryValue: $0) } ?? []
    precondition(fromQuery == parts, "\(parts) is written \(String(describing: query)) in a query, which reads back as \(String(describing: fromQuery)), \(what())")
}

/// Runs libFuzzer on ``fuzz(_:_:)`` when linked with it, otherwise replays input files.
@main
enum ActorKeyFuzzer {
    static func main() {
        FuzzEntryPoint.run(fuzz)
    }
}
