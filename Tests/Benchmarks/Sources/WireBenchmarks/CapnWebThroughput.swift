import BenchmarkSupport
import RpcWire

/// Measures the Cap'n Web codec on one message: decoding, encoding, and both in turn, as a
/// peer does for every frame it relays.
enum CapnWebThroughput {
    /// Checks that `bytes` decodes and re-encodes faithfully, times the codec, and returns an
    /// informational report line.
    ///
    /// - Throws: ``VerificationFailure`` when the round trip changes the message, or the codec's
    ///   error.
    static func report(name: String, bytes: [UInt8], sampler: Sampler) throws -> String {
        let codec = CapnWebCodec()
        let message = try codec.decode(bytes)
        let encoded = try codec.encode(message)
        guard try codec.decode(encoded) == message else {
            throw VerificationFailure("\(name): the Cap'n Web codec does not round-trip the message")
        }
        let size = bytes.count
        let results = try sampler.measure([
            Workload("decode+encode", bytesPerOperation: size) {
                blackHole(try codec.encode(try codec.decode(bytes)))
            },
            Workload("decode", bytesPerOperation: size) { blackHole(try codec.decode(bytes)) },
            Workload("encode", bytesPerOperation: size) { blackHole(try codec.encode(message)) },
        ])
        let identical = encoded == bytes ? "byte-identical" : "re-encoded differently"
        return "capnweb   " + ReportFormat.left(name, 14) + ReportFormat.right(ReportFormat.size(size), 9)
            + "  decode+encode " + ReportFormat.grouped(results[0].operationsPerSecond) + " msg/s ("
            + ReportFormat.fixed(results[0].microsecondsPerOperation, decimals: 3) + " us/msg; decode "
            + ReportFormat.fixed(results[1].microsecondsPerOperation, decimals: 3) + " us, encode "
            + ReportFormat.fixed(results[2].microsecondsPerOperation, decimals: 3) + " us; round trip "
            + identical + ")"
    }
}
