@testable import RpcWireTool
import Testing

@Suite("rpcwire command")
struct RpcWireCommandTests {
    private func run(_ arguments: String..., input: String) -> RpcWireCommand.Outcome {
        RpcWireCommand { file in file == "-" || file == "in.json" ? Array(input.utf8) : nil }.run(arguments)
    }

    @Test("validate exits 0 for a valid document and prints nothing")
    func validateAccepts() {
        let outcome = run("validate", input: #"{"a":[1,2.5,"x"]}"#)
        #expect(outcome.status == 0)
        #expect(outcome.output.isEmpty && outcome.errors.isEmpty)
    }

    @Test("validate exits 1 and reports line, column and byte of the first error")
    func validateRejects() {
        let outcome = run("validate", "in.json", input: "{\n  \"a\": [1,]\n}")
        #expect(outcome.status == 1)
        #expect(outcome.errorText.hasPrefix("error at line 2, column 11 (byte 12): "))
    }

    @Test("usage errors and unreadable files exit 2")
    func usageErrors() {
        #expect(run(input: "").status == 2)
        #expect(run("frobnicate", input: "").status == 2)
        #expect(run("validate", "--canonical", input: "1").status == 2)
        #expect(run("validate", "a", "b", input: "1").status == 2)
        let missing = run("validate", "missing.json", input: "1")
        #expect(missing.status == 2)
        #expect(missing.errorText.contains("cannot read 'missing.json'"))
    }

    @Test("format writes compact JSON and, with --canonical, sorted keys")
    func format() {
        #expect(run("format", input: #"{ "b" : 1, "a" : [ true , null ] }"#).outputText == "{\"b\":1,\"a\":[true,null]}\n")
        #expect(run("format", "--canonical", input: #"{"b":1,"a":{"d":1,"c":2}}"#).outputText == "{\"a\":{\"c\":2,\"d\":1},\"b\":1}\n")
        #expect(run("format", input: "[1,").status == 1)
    }

    @Test("capnweb prints one decoded form or one error line per input line")
    func capnwebDecodes() {
        let outcome = run("capnweb", input: "[\"pull\",1]\n\n[\"frob\",1]\n[\"release\",1,1]\n")
        #expect(outcome.status == 1)
        let lines = outcome.outputText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("line 3: error: "))
        #expect(lines[1].contains("frob"))
        #expect(!lines[0].contains("error") && !lines[2].contains("error"))
    }

    @Test("capnweb --roundtrip re-encodes each message byte for byte")
    func capnwebRoundTrip() {
        let input = #"["push",["pipeline",0,["echo"],[[[["date",5],["bigint","-5"],["bytes","AQID"],["undefined"]]]]]]"#
        let outcome = run("capnweb", "--roundtrip", input: input + "\n")
        #expect(outcome.status == 0)
        #expect(outcome.outputText == input + "\n")
    }
}
