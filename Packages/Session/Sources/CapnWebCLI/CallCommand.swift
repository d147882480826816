import ArgumentParser

/// `capnweb call URL EXPR...`: evaluates expressions on a server's main object.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call a Cap'n Web server and print the result.",
        discussion: """
            Each EXPR is a JavaScript-like expression on the server's main object, optionally \
            bound to a name for later ones: 'u = getUser(7)' 'u.profile.displayName'. Calls take \
            literal arguments (numbers, strings, 12n, new Date(5), undefined, NaN, arrays, \
            objects) and other calls; 'x.map(v => f(v))' maps on the server. Every call is sent \
            at once, pipelined, and only the last value is awaited: one round trip.

            The last value prints as JSON with JavaScript literals on standard output (a stream \
            prints as the array of its chunks). Exit status: 0 success, 1 rejected \
            ('Name: message' on standard error), 2 bad expression, 3 connection failure \
            (the server aborted or sent a bad frame), 124 timeout. An answer that arrived \
            counts however the close goes; the close handshake is cut short after \
            --close-wait seconds (1 by default), or at the timeout if that comes first.
            """
    )

    @Flag(help: "Send everything as one HTTP batch (an http:// or https:// URL).")
    var batch = false

    @Flag(help: "Write every frame to standard error: '-> ' sent, '<- ' received.")
    var trace = false

    @Option(help: "How long the whole command may take, in seconds, connecting and closing included.")
    var timeout: Double = 30

    @Option(
        name: .customLong("close-wait"),
        help: "How long to wait for the server to answer the close, in seconds, once the answer is in.")
    var closeWait: Double = 1

    @Option(
        name: .customLong("ca-cert"),
        help: ArgumentHelp(
            "A PEM file of certificates to trust instead of the system's roots (repeatable).",
            valueName: "file"))
    var caCertificates: [String] = []

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "A header for the WebSocket upgrade or the batch request, as 'Name: value' (repeatable).",
            valueName: "header"))
    var headers: [String] = []

    @Argument(help: "The server: ws:// or wss://, or http:// or https:// with --batch.")
    var url: String

    @Argument(help: "The expressions, in order; the last one's value is printed.")
    var expressions: [String]

    /// The largest `--timeout`, in seconds (a year): its milliseconds fit a 64-bit count.
    static let maximumTimeout: Double = 365 * 86_400

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= Self.maximumTimeout else {
            throw ValidationError("the timeout must be a positive number of seconds, at most \(Int(Self.maximumTimeout))")
        }
        guard closeWait.isFinite, closeWait >= 0, closeWait <= 3600 else {
            throw ValidationError("the close wait must be a number of seconds from 0 to 3600")
        }
        guard !expressions.isEmpty else {
            throw ValidationError("give at least one expression to evaluate")
        }
        _ = try parsedHeaders()
    }

    /// The `--header` values as a dictionary.
    ///
    /// - Throws: `ValidationError` for a value without a colon or with an empty name.
    private func parsedHeaders() throws -> [String: String] {
        var result: [String: String] = [:]
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else {
                throw ValidationError("a header must be given as 'Name: value', not '\(header)'")
            }
            let name = Self.trimmed(header[..<colon])
            guard !name.isEmpty, !name.contains(where: { $0.isWhitespace }) else {
                throw ValidationError("a header must have a name without spaces, not '\(header)'")
            }
            result[name] = Self.trimmed(header[header.index(after: colon)...])
        }
        return result
    }

    /// `text` without its leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    func run() async throws {
        let options = CallOptions(
            url: url, statements: expressions, batch: batch, trace: trace,
            timeout: .milliseconds(Int64((timeout * 1000).rounded())),
            caCertificates: caCertificates, headers: try parsedHeaders(),
            closeWait: .milliseconds(Int64((closeWait * 1000).rounded())))
        let status = await CallRunner.run(options, output: .process)
        if status != 0 {
            throw ExitCode(status)
        }
    }
}
