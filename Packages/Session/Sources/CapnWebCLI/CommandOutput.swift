import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes its standard output and standard error.
///
/// ``process`` writes to the process's file descriptors 1 and 2, unbuffered, so that a line such
/// as `READY ws://...` reaches a reading process at once; ``capture()`` collects the text
/// instead, for running commands in-process.
struct CommandOutput: Sendable {
    /// Writes text to standard output.
    let standardOutput: @Sendable (String) -> Void
    /// Writes text to standard error.
    let standardError: @Sendable (String) -> Void

    /// Creates an output from two writers.
    init(
        standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's standard output and standard error.
    static let process = CommandOutput(
        standardOutput: { writeAll($0, to: 1) },
        standardError: { writeAll($0, to: 2) }
    )

    /// An output that keeps what is written, and the buffer to read it from.
    static func capture() -> (output: CommandOutput, buffer: CapturedOutput) {
        let buffer = CapturedOutput()
        let output = CommandOutput(
            standardOutput: { text in buffer.append(text, error: false) },
            standardError: { text in buffer.append(text, error: true) }
        )
        return (output, buffer)
    }

    /// Writes `text` to the file descriptor `descriptor`, retrying short writes.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return write(descriptor, base + offset, buffer.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
        bytes.removeAll()
    }
}

/// The text a ``CommandOutput/capture()`` output collected.
final class CapturedOutput: Sendable {
    private let text = Mutex<(output: String, error: String)>(("", ""))

    /// Everything written to standard output so far.
    var standardOutput: String { text.withLock { $0.output } }

    /// Everything written to standard error so far.
    var standardError: String { text.withLock { $0.error } }

    /// Appends `text` to one of the streams.
    func append(_ text: String, error: Bool) {
        self.text.withLock { streams in
            if error {
                streams.error += text
            } else {
                streams.output += text
            }
        }
    }
}
