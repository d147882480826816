import Testing
@testable import CapnWebCLI
import CapnWeb

/// What `capnweb call` prints for what a server sent: control characters never reach the
/// terminal raw.
@Suite("capnweb call output")
struct CallOutputTests {
    private let options = CallOptions(url: "ws://127.0.0.1:1/", statements: ["f()"])

    /// Reports `outcome` into a captured output; returns the status and both streams.
    private func report(_ outcome: CallOutcome) -> (status: Int32, output: String, error: String) {
        let (output, buffer) = CommandOutput.capture()
        let status = CallRunner.report(outcome, options: options, output: output)
        return (status, buffer.standardOutput, buffer.standardError)
    }

    @Test("a rejection's name and message are printed with ESC, BEL, CR, line feeds and C1 controls escaped")
    func rejectionEscaped() {
        let printed = report(.rejected(name: "Error\u{1B}]0;owned\u{07}", message: "a\rb\u{9B}31mc\u{7F}\nd\te\u{0}"))
        #expect(printed.status == CallExitCode.rejected)
        #expect(printed.error == #"Error\u001b]0;owned\u0007: a\rb\u009b31mc\u007f\nd\te\u0000"# + "\n")
        #expect(printed.output.isEmpty)
    }

    @Test("a value's strings and keys are printed with every control character escaped, C1 included")
    func valueEscaped() {
        let value = RpcPayload.object([.init("k\u{85}", .string("x\u{9B}y\u{1B}[2Jz\u{07}")), .init("ok", .string("é\\"))])
        let printed = report(.value(value))
        #expect(printed.status == CallExitCode.success)
        #expect(printed.output == #"{"k\u0085":"x\u009by\u001b[2Jz\u0007","ok":"é\\"}"# + "\n")
        #expect(printed.error.isEmpty)
    }

    @Test("a failure's text keeps its line feeds but escapes every other control character")
    func failureEscaped() {
        let printed = report(.failed("session aborted: \u{1B}[2J\u{9D}title\u{9C}\nsecond line\r"))
        #expect(printed.status == CallExitCode.failed)
        #expect(printed.error == "error: session aborted: \\u001b[2J\\u009dtitle\\u009c\nsecond line\\r\n")
    }

    @Test("a traced frame is printed on one line with its control characters escaped")
    func traceEscaped() {
        #expect(CallRunner.traceLine(sent: false, frame: "[\"resolve\",1,\"\u{9B}\"]\r\u{1B}c") == #"<- ["resolve",1,"\u009b"]\r\u001bc"# + "\n")
        #expect(CallRunner.traceLine(sent: true, frame: #"["pull",1]"#) == #"-> ["pull",1]"# + "\n")
    }

    @Test("bidirectional embeddings, overrides, isolates and marks are escaped wherever the server's text is printed")
    func bidiControlsEscaped() {
        let controls: [Unicode.Scalar] = [
            "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
            "\u{200E}", "\u{200F}", "\u{061C}",
        ]
        for control in controls {
            let hex = String(control.value, radix: 16)
            let escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            #expect(TerminalText.escaped("x\(control)y") == "x\(escape)y")
            #expect(TerminalText.escaped("x\(control)y", keepingLineFeeds: true) == "x\(escape)y")
        }
        let value = RpcPayload.object([.init("\u{202E}key", .string("admin\u{2067}txt.exe"))])
        #expect(report(.value(value)).output == #"{"\u202ekey":"admin\u2067txt.exe"}"# + "\n")
        #expect(report(.rejected(name: "Error", message: "\u{202E}olleh")).error == #"Error: \u202eolleh"# + "\n")
        // Neighbours that are ordinary text stay as they are.
        #expect(TerminalText.escaped("\u{2029}\u{206A}\u{2010}") == "\u{2029}\u{206A}\u{2010}")
    }

    @Test("text without control characters is printed unchanged")
    func plainUnchanged() {
        #expect(TerminalText.escaped("Ünïcødé 😀 \\u001b") == "Ünïcødé 😀 \\u001b")
        #expect(report(.rejected(name: "RangeError", message: "test error")).error == "RangeError: test error\n")
    }
}
