internal import CapnWeb

/// Runs `capnweb call`: parses the statements, connects, sends every call pipelined, awaits
/// the last value and prints it.
///
/// Every statement is evaluated before anything is awaited, so the calls of all statements
/// travel together and the whole command costs one round trip. The last value is printed as
/// compact JSON with JavaScript literals (``RpcPayload/description``) on standard output; a
/// readable stream prints as the array of its chunks. A rejection prints `Name: message` on
/// standard error. Control characters in anything the server sent are printed as escapes
/// (``TerminalText``). See ``CallExitCode`` for the exit statuses.
enum CallRunner {
    /// Runs the command and returns its exit status.
    static func run(_ options: CallOptions, output: CommandOutput) async -> Int32 {
        let statements: [CallStatement]
        switch parse(options.statements) {
        case .success(let parsed):
            statements = parsed
        case .failure(let message):
            output.standardError("error: \(message)\n")
            return CallExitCode.invalidExpression
        }
        // One deadline for the whole command, the close included.
        let deadline = ContinuousClock.now + options.timeout
        let holder = SessionHolder()
        let outcome = await Deadline.run(until: deadline) {
            await evaluate(statements, options: options, deadline: deadline, holder: holder, output: output)
        } onTimeout: {
            // The deadline has passed: the connection is cut, not closed with a handshake, and
            // the calls still waiting fail at once.
            await holder.close(by: deadline)
        }
        // The outcome is decided before the session closes, so a peer that ignores the close
        // cannot turn an answer into a timeout; the close waits for its handshake for the
        // close wait, never past the deadline, then cuts the connection: one bound, the same
        // every run, whatever the transport's own close timeout.
        await holder.close(by: min(deadline, ContinuousClock.now + options.closeWait))
        return report(outcome ?? .timedOut, options: options, output: output)
    }

    /// Parses every statement; the failure is the first error with its position.
    static func parse(_ sources: [String]) -> Result<[CallStatement], ParseFailure> {
        guard !sources.isEmpty else { return .failure(ParseFailure("no expression to evaluate")) }
        var statements: [CallStatement] = []
        for (index, source) in sources.enumerated() {
            do {
                statements.append(try CallStatement(parsing: source))
            } catch {
                let which = sources.count > 1 ? "expression \(index + 1), " : ""
                return .failure(ParseFailure(which + error.pointing(into: source)))
            }
        }
        return .success(statements)
    }

    /// A parse error's text.
    struct ParseFailure: Error, CustomStringConvertible {
        /// The message, with the source and a caret.
        var description: String

        /// Creates a failure.
        init(_ description: String) {
            self.description = description
        }
    }

    /// Connects, evaluates, awaits and reads; the session is left to `holder` to close.
    private static func evaluate(
        _ statements: [CallStatement], options: CallOptions, deadline: ContinuousClock.Instant,
        holder: SessionHolder, output: CommandOutput
    ) async -> CallOutcome {
        let trace: (@Sendable (Bool, String) -> Void)? =
            options.trace ? { @Sendable sent, text in output.standardError(traceLine(sent: sent, frame: text)) } : nil
        if options.batch {
            return await CallConnection.batch(options, trace: trace) { main in
                await evaluate(statements, on: main)
            }
        }
        let session: RpcSession<Any>
        do {
            session = try await CallConnection.open(options, trace: trace)
        } catch {
            // The connect timeout is the command's: a connect that ran out of it is a timeout.
            if ContinuousClock.now >= deadline { return .timedOut }
            return .failed("cannot connect to \(options.url): \(error)")
        }
        await holder.hold(session)
        return await evaluate(statements, on: session.api)
    }

    /// The line `--trace` writes for one frame: its direction, then the frame with its control
    /// characters escaped (a frame is JSON, but one received may be anything).
    static func traceLine(sent: Bool, frame: String) -> String {
        (sent ? "-> " : "<- ") + TerminalText.escaped(frame) + "\n"
    }

    /// Sends every statement's calls, in order, then awaits the last value and reads its
    /// streams.
    static func evaluate(_ statements: [CallStatement], on main: Ref<Any>) async -> CallOutcome {
        var evaluator = CallEvaluator(main: main)
        var values: [CallValue] = []
        do {
            for statement in statements {
                values.append(try evaluator.run(statement))
            }
        } catch {
            return .invalid(error.message)
        }
        guard let last = values.last else { return .invalid("no expression to evaluate") }
        let outcome = await CallResult.settle(last)
        // The earlier values stay referenced until the answer is in, so that nothing they
        // pipeline on is released while the last call still needs it.
        withExtendedLifetime(values) {}
        return outcome
    }

    /// Prints the outcome and returns the exit status.
    static func report(_ outcome: CallOutcome, options: CallOptions, output: CommandOutput) -> Int32 {
        switch outcome {
        // Everything the server chose is written with its control characters escaped
        // (see ``TerminalText``), so that it cannot drive the terminal.
        case .value(let payload):
            output.standardOutput(TerminalText.escaped(payload.description) + "\n")
            return CallExitCode.success
        case .rejected(let name, let message):
            output.standardError(TerminalText.escaped("\(name): \(message)") + "\n")
            return CallExitCode.rejected
        case .invalid(let message):
            output.standardError("error: " + TerminalText.escaped(message, keepingLineFeeds: true) + "\n")
            return CallExitCode.invalidExpression
        case .failed(let message):
            output.standardError("error: " + TerminalText.escaped(message, keepingLineFeeds: true) + "\n")
            return CallExitCode.failed
        case .timedOut:
            output.standardError("error: timed out: no answer within \(Deadline.text(options.timeout))\n")
            return CallExitCode.timedOut
        }
    }
}
