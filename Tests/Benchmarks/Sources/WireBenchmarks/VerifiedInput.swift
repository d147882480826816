import BenchmarkSupport
import Foundation
import RpcWire

/// An input whose operations have been checked to compute the same thing on both sides, with
/// the workloads that time them.
///
/// Checks, before anything is timed:
/// - our parse and `JSONSerialization`'s hold the same content;
/// - our serializer's output parses back (with our parser) equal to what was serialized, and
///   `JSONSerialization` reads the same content from it;
/// - `JSONSerialization`'s output parses back to the content it was given;
/// - both decoders decode the model the text was written from.
struct VerifiedInput {
    /// The input.
    let input: BenchmarkInput
    /// Our parse of the input, serialized by the serialize workload.
    private let value: JSONValue
    /// Foundation's parse of the input, serialized by its serialize workload.
    private let foundationTree: Any

    /// Checks `input`.
    ///
    /// - Throws: ``VerificationFailure`` or the error of the operation that failed.
    init(checking input: BenchmarkInput) throws {
        let name = input.name
        let parser = JSONParser()
        let value = try parser.parse(input.bytes)
        let foundationTree = try JSONSerialization.jsonObject(with: input.data)
        guard FoundationTree.matches(value, foundationTree) else {
            throw VerificationFailure("\(name): JSONParser and JSONSerialization read different content")
        }

        let written = try JSONSerializer().serialize(value)
        guard try parser.parse(written) == value else {
            throw VerificationFailure("\(name): JSONSerializer's output does not parse back equal")
        }
        guard FoundationTree.matches(value, try JSONSerialization.jsonObject(with: Data(written))) else {
            throw VerificationFailure("\(name): JSONSerialization reads JSONSerializer's output differently")
        }

        let foundationWritten = try JSONSerialization.data(withJSONObject: foundationTree)
        guard FoundationTree.matches(try parser.parse(Array(foundationWritten)), foundationTree) else {
            throw VerificationFailure("\(name): JSONSerialization's output does not read back equal")
        }

        try input.verifyTypedDecoding()

        self.input = input
        self.value = value
        self.foundationTree = foundationTree
    }

    /// Our workload and Foundation's for `operation`.
    func workloads(for operation: WireOperation) -> (ours: Workload, baseline: Workload) {
        let size = input.bytes.count
        switch operation {
        case .parse:
            let bytes = input.bytes
            let data = input.data
            let parser = JSONParser()
            return (
                Workload("ours", bytesPerOperation: size) { blackHole(try parser.parse(bytes)) },
                Workload(operation.baselineName, bytesPerOperation: size) {
                    blackHole(try JSONSerialization.jsonObject(with: data))
                })
        case .serialize:
            let value = value
            let tree = foundationTree
            let serializer = JSONSerializer()
            return (
                Workload("ours", bytesPerOperation: size) { blackHole(try serializer.serialize(value)) },
                Workload(operation.baselineName, bytesPerOperation: size) {
                    blackHole(try JSONSerialization.data(withJSONObject: tree))
                })
        case .decode:
            return (
                Workload("ours", bytesPerOperation: size, input.decodeWithOurs),
                Workload(operation.baselineName, bytesPerOperation: size, input.decodeWithFoundation))
        }
    }
}
