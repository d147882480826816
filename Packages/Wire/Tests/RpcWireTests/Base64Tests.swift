import RpcWire
import Testing

@Suite("Base64, the one codec of the stack")
struct Base64Tests {
    @Test("Encoding writes the standard alphabet unpadded by default, with padding or the URL-safe alphabet when asked")
    func encodingOptions() {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8")
        #expect(Base64.encode([0xFB, 0xFF], padded: true) == "+/8=")
        #expect(Base64.encode([0xFB, 0xFF], urlSafe: true) == "-_8")
        #expect(Base64.encode([0xFB, 0xFF, 0x01, 0x02], padded: true, urlSafe: true) == "-_8BAg==")
        #expect(Base64.encode([], padded: true) == "")
    }

    @Test("Decoding reads padded and unpadded text, and the URL-safe alphabet only when asked")
    func decodingOptions() {
        #expect(Base64.decode("+/8=") == [0xFB, 0xFF])
        #expect(Base64.decode("+/8") == [0xFB, 0xFF])
        #expect(Base64.decode("-_8") == nil)
        #expect(Base64.decode("-_8", acceptingURLSafe: true) == [0xFB, 0xFF])
        #expect(Base64.decode("-_8=", acceptingURLSafe: true) == [0xFB, 0xFF])
        #expect(Base64.decode("AQ=") == nil)
        #expect(Base64.decode("AQ==AQID") == nil)
        #expect(Base64.decode("AQIDB") == nil)
    }

    @Test("Every byte string survives every encoding", arguments: [0, 1, 2, 3, 4, 5, 31, 32, 33])
    func roundTrips(count: Int) {
        let bytes = (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
        for padded in [false, true] {
            for urlSafe in [false, true] {
                let text = Base64.encode(bytes, padded: padded, urlSafe: urlSafe)
                #expect(Base64.decode(text, acceptingURLSafe: urlSafe) == bytes)
            }
        }
    }
}
