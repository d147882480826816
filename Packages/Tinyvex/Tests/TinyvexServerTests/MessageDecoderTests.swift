import Testing
import TinyvexProtocol
import TinyvexServer

@Suite("Tinyvex message decoder (the fuzzing entry point)", .timeLimit(.minutes(1)))
struct MessageDecoderTests {
    @Test("it answers as the server does: parse errors, invalid requests, unknown methods, bad params, batches element by element")
    func outcomes() {
        #expect(TinyvexMessageDecoder.decode(Array("{not json".utf8)) == [.refused(code: -32700)])
        #expect(TinyvexMessageDecoder.decode(Array("[]".utf8)) == [.refused(code: -32600)])
        #expect(TinyvexMessageDecoder.decode(Array(#"{"jsonrpc":"2.0","id":1,"method":"nothing"}"#.utf8)) == [.refused(code: -32601)])
        let batch = #"[{"jsonrpc":"2.0","id":1,"method":"tinyvex/ping"},"#
            + #"{"jsonrpc":"2.0","id":2,"method":"tinyvex/subscribe","params":{"subId":"s","name":"q","lastSeq":-1}},"#
            + #"{"jsonrpc":"2.0","id":3,"method":"tinyvex/mutation","params":{"requestId":"r","name":"m"}}]"#
        #expect(TinyvexMessageDecoder.decode(Array(batch.utf8)) == [
            .request(method: TinyvexMethod.ping), .refused(code: -32602), .request(method: TinyvexMethod.mutation),
        ])
        let long = #"{"jsonrpc":"2.0","id":1,"method":"tinyvex/mutation","params":{"requestId":"abcdef","name":"m"}}"#
        #expect(TinyvexMessageDecoder.decode(Array(long.utf8), maxIdentifierBytes: 5) == [.refused(code: -32602)])
    }

    @Test("arbitrary bytes never trap it")
    func arbitraryBytes() {
        var generator = SystemRandomNumberGenerator()
        let seeds = [#"{"jsonrpc":"2.0","id":1,"method":"tinyvex/subscribe","params":{"subId":"s","name":"q","lastSeq":9223372036854775807}}"#]
        for _ in 0..<2_000 {
            var bytes = Array(seeds[0].utf8)
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            #expect(!TinyvexMessageDecoder.decode(bytes).isEmpty)
        }
    }
}
