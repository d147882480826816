import BenchmarkSupport
import Foundation
import RpcWire

/// One benchmark input: its JSON text, and typed decoding into the model it was written from.
///
/// The model type is erased behind closures so that inputs of different types can sit in one
/// list.
struct BenchmarkInput {
    /// A short name used in reports, for example `push-message`.
    let name: String
    /// The JSON text, as UTF-8.
    let bytes: [UInt8]
    /// The same text, for Foundation.
    let data: Data
    /// Decodes the text with both decoders and checks each result against the model the text
    /// was written from.
    let verifyTypedDecoding: () throws -> Void
    /// Our typed decode of the text: `JSONValueDecoder` from bytes.
    let decodeWithOurs: () throws -> Void
    /// Foundation's typed decode of the text: `JSONDecoder` from `Data`.
    let decodeWithFoundation: () throws -> Void

    /// Creates an input whose text was written from `expected`.
    init<Model: Codable & Equatable>(name: String, bytes: [UInt8], expected: Model) {
        let data = Data(bytes)
        let ourDecoder = JSONValueDecoder()
        let foundationDecoder = JSONDecoder()
        self.name = name
        self.bytes = bytes
        self.data = data
        verifyTypedDecoding = {
            let ours = try ourDecoder.decode(Model.self, from: bytes)
            guard ours == expected else {
                throw VerificationFailure("\(name): JSONValueDecoder decoded a different \(Model.self)")
            }
            let theirs = try foundationDecoder.decode(Model.self, from: data)
            guard theirs == expected else {
                throw VerificationFailure("\(name): JSONDecoder decoded a different \(Model.self)")
            }
        }
        decodeWithOurs = {
            blackHole(try ourDecoder.decode(Model.self, from: bytes))
        }
        decodeWithFoundation = {
            blackHole(try foundationDecoder.decode(Model.self, from: data))
        }
    }
}
