import RivetKit
import Testing

@Suite("CBOR map keys of creation inputs")
struct CBORMapKeyTests {
    @Test("A map whose key is a map is refused as malformed instead of read into a key text that doubles at every level")
    func nestedMapKeysAreRefused() throws {
        // 40 levels of {{...}: null}: each key's text would escape the one below it, so the
        // outermost key would hold about 2^40 bytes.
        var bytes: [UInt8] = []
        for _ in 0 ..< 40 { bytes.append(0xA1) }
        bytes.append(0xA0)
        for _ in 0 ..< 40 { bytes.append(0xF6) }
        #expect(throws: ActorError.self) { try RivetCBOR.decode(bytes) }
    }

    @Test("An array key is refused, and scalar keys read as JSON writes them")
    func scalarKeysAreRead() throws {
        #expect(throws: ActorError.self) { try RivetCBOR.decode([0xA1, 0x81, 0x01, 0xF6]) }
        // {1: true, "k": false, true: null}
        let value = try RivetCBOR.decode([0xA3, 0x01, 0xF5, 0x61, 0x6B, 0xF4, 0xF5, 0xF6])
        #expect(value == ["1": true, "k": false, "true": nil])
    }
}
