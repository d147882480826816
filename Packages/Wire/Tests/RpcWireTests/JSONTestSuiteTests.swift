import Foundation
import RpcWire
import Testing

/// Runs the parser over every case of the JSONTestSuite parsing corpus.
///
/// `y_` files must parse, `n_` files must fail with a ``WireError``, and `i_` files (where the
/// specification leaves the outcome to the implementation) must get an answer either way,
/// without crashing. How fast is the benchmarks' business: the suite's time limit only stops a
/// runaway parse from hanging the run.
@Suite("JSONTestSuite conformance", .timeLimit(.minutes(5)))
struct JSONTestSuiteTests {
    /// The corpus directory, resolved without recording an issue so that argument lists can be
    /// built statically; the summary test records one when the directory is missing.
    static let directory = SharedFixtures.sharedDirectory
        .appendingPathComponent("conformance/JSONTestSuite/test_parsing")

    static let fileNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    static let acceptedNames = fileNames.filter { $0.hasPrefix("y_") }
    static let rejectedNames = fileNames.filter { $0.hasPrefix("n_") }
    static let implementationDefinedNames = fileNames.filter { $0.hasPrefix("i_") }

    static func contents(of name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Parses a case, returning the error instead of throwing it.
    static func outcome(of name: String) throws -> Result<JSONValue, WireError> {
        let bytes = try contents(of: name)
        let parser = JSONParser()
        return Result { () throws(WireError) -> JSONValue in try parser.parse(bytes) }
    }

    @Test("Each y_ document is accepted", arguments: acceptedNames)
    func acceptsValidDocument(name: String) throws {
        let result = try Self.outcome(of: name)
        if case .failure(let error) = result {
            Issue.record("\(name) was rejected: \(error)")
        }
    }

    @Test("Each n_ document is rejected with a located WireError", arguments: rejectedNames)
    func rejectsInvalidDocument(name: String) throws {
        let result = try Self.outcome(of: name)
        switch result {
        case .success(let value):
            Issue.record("\(name) was accepted as \(value)")
        case .failure(let error):
            #expect(error.location != nil, "\(name): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("Each i_ document is answered, either way, with a located error when rejected", arguments: implementationDefinedNames)
    func answersImplementationDefinedDocument(name: String) throws {
        let result = try Self.outcome(of: name)
        if case .failure(let error) = result {
            #expect(error.location != nil, "\(name): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("Every y_ case is accepted and every n_ case rejected, in total")
    func summary() throws {
        _ = SharedFixtures.url("conformance/JSONTestSuite/test_parsing")
        #expect(Self.fileNames.count > 0)
        var accepted = 0
        var rejected = 0
        var implementationAccepted = 0
        var implementationRejected = 0
        for name in Self.fileNames {
            let result = try Self.outcome(of: name)
            let succeeded = if case .success = result { true } else { false }
            if name.hasPrefix("y_"), succeeded {
                accepted += 1
            } else if name.hasPrefix("n_"), !succeeded {
                rejected += 1
            } else if name.hasPrefix("i_") {
                if succeeded {
                    implementationAccepted += 1
                } else {
                    implementationRejected += 1
                }
            }
        }
        let answered = implementationAccepted + implementationRejected
        print(
            "JSONTestSuite: \(accepted) y_ accepted, \(rejected) n_ rejected, \(answered) i_ answered "
                + "(\(implementationAccepted) accepted, \(implementationRejected) rejected)"
        )
        #expect(accepted == Self.acceptedNames.count)
        #expect(rejected == Self.rejectedNames.count)
        #expect(answered == Self.implementationDefinedNames.count)
        #expect(Self.acceptedNames.count > 0)
        #expect(Self.rejectedNames.count > 0)
    }
}
