import RpcWire

/// The logic of the `rpcwire` command, free of process I/O so that tests can drive it.
///
/// Exit status: 0 on success, 1 when the input is invalid, 2 for a usage or I/O error.
struct RpcWireCommand {
    /// What a run printed and how it ended.
    struct Outcome: Equatable {
        var status: Int32 = 0
        var output: [UInt8] = []
        var errors: [UInt8] = []

        var outputText: String { String(decoding: output, as: UTF8.self) }
        var errorText: String { String(decoding: errors, as: UTF8.self) }

        mutating func print(_ text: String) {
            output += Array(text.utf8)
            output.append(UInt8(ascii: "\n"))
        }

        mutating func printError(_ text: String) {
            errors += Array(text.utf8)
            errors.append(UInt8(ascii: "\n"))
        }
    }

    static let usage = """
        usage: rpcwire <command> [options] [FILE|-]

        commands:
          validate [FILE|-]                 exit 0 for a valid JSON document, 1 otherwise
          format [--canonical] [FILE|-]     print the document as compact JSON
                                            (--canonical: keys sorted, for de-duplication)
          capnweb [--roundtrip] [FILE|-]    decode one Cap'n Web message per line and print
                                            its decoded form (--roundtrip: its re-encoding)

        FILE defaults to standard input; '-' names it explicitly.
        """

    /// Reads a named file, or standard input for `-`; `nil` when it cannot be read.
    var read: (String) -> [UInt8]?

    /// Runs the command with `arguments` (without the program name).
    func run(_ arguments: [String]) -> Outcome {
        var outcome = Outcome()
        guard let command = arguments.first else {
            return usageError("missing command")
        }
        let rest = Array(arguments.dropFirst())
        let flags: Set<String>
        switch command {
        case "-h", "--help", "help":
            outcome.print(Self.usage)
            return outcome
        case "validate": flags = []
        case "format": flags = ["--canonical"]
        case "capnweb": flags = ["--roundtrip"]
        default: return usageError("unknown command '\(command)'")
        }

        var chosen: Set<String> = []
        var files: [String] = []
        for argument in rest {
            if flags.contains(argument) {
                chosen.insert(argument)
            } else if argument == "-h" || argument == "--help" {
                outcome.print(Self.usage)
                return outcome
            } else if argument.hasPrefix("-") && argument != "-" {
                return usageError("unknown option '\(argument)' for \(command)")
            } else {
                files.append(argument)
            }
        }
        guard files.count <= 1 else {
            return usageError("expected at most one FILE, got \(files.count)")
        }
        let file = files.first ?? "-"
        guard let input = read(file) else {
            outcome.printError("rpcwire: cannot read '\(file)'")
            outcome.status = 2
            return outcome
        }

        switch command {
        case "validate": validate(input, into: &outcome)
        case "format": format(input, canonical: chosen.contains("--canonical"), into: &outcome)
        default: capnweb(input, roundtrip: chosen.contains("--roundtrip"), into: &outcome)
        }
        return outcome
    }

    private func validate(_ input: [UInt8], into outcome: inout Outcome) {
        do {
            _ = try JSONParser().parse(input)
        } catch {
            outcome.printError(error.description)
            outcome.status = 1
        }
    }

    private func format(_ input: [UInt8], canonical: Bool, into outcome: inout Outcome) {
        do {
            let value = try JSONParser().parse(input)
            outcome.output += try JSONSerializer(configuration: .init(canonical: canonical)).serialize(value)
            outcome.output.append(UInt8(ascii: "\n"))
        } catch {
            outcome.printError(error.description)
            outcome.status = 1
        }
    }

    private func capnweb(_ input: [UInt8], roundtrip: Bool, into outcome: inout Outcome) {
        let codec = CapnWebCodec()
        let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
            var bytes = Array(line)
            if bytes.last == UInt8(ascii: "\r") {
                bytes.removeLast()
            }
            if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                continue
            }
            do {
                let message = try codec.decode(bytes)
                if roundtrip {
                    outcome.output += try codec.encode(message)
                    outcome.output.append(UInt8(ascii: "\n"))
                } else {
                    outcome.print(message.description)
                }
            } catch {
                outcome.print("line \(number + 1): error: \(error.description)")
                outcome.status = 1
            }
        }
    }

    private func usageError(_ reason: String) -> Outcome {
        var outcome = Outcome()
        outcome.printError("rpcwire: \(reason)\n\n\(Self.usage)")
        outcome.status = 2
        return outcome
    }
}
