#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The function libFuzzer calls with every input: `LLVMFuzzerTestOneInput`.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

/// Starts a fuzz executable, with or without libFuzzer.
///
/// Built with `-sanitize=fuzzer`, the executable contains libFuzzer's driver, and ``run(_:)``
/// hands it the command line, so every libFuzzer option works. Built plainly (`swift build`),
/// it has no driver, and ``run(_:)`` feeds each file named on the command line to the test
/// function once: a crash artifact can then be reproduced without sanitizers.
///
/// ```swift
/// @main
/// enum ParserFuzzer {
///     static func main() { FuzzEntryPoint.run(fuzz) }
/// }
/// ```
public enum FuzzEntryPoint {
    /// libFuzzer's `LLVMFuzzerRunDriver(int *argc, char ***argv, callback)`.
    private typealias Driver = @convention(c) (
        UnsafeMutablePointer<CInt>,
        UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        FuzzTestOneInput
    ) -> CInt

    /// Runs libFuzzer when it is linked in, otherwise replays the files named on the command
    /// line; then exits with the resulting status.
    public static func run(_ testOneInput: FuzzTestOneInput) -> Never {
        if let driver = linkedDriver() {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(driver(&argc, &argv, testOneInput))
        }
        exit(replay(Array(CommandLine.arguments.dropFirst()), through: testOneInput))
    }

    /// libFuzzer's driver when the executable was linked with it.
    private static func linkedDriver() -> Driver? {
        guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "LLVMFuzzerRunDriver") else {
            return nil
        }
        return unsafeBitCast(symbol, to: Driver.self)
    }

    /// Feeds every file in `arguments` (options starting with `-` are ignored) to
    /// `testOneInput` once.
    ///
    /// - Returns: 0 when every file ran, 2 when a file cannot be read or none was named.
    private static func replay(_ arguments: [String], through testOneInput: FuzzTestOneInput) -> CInt {
        let paths = arguments.filter { !$0.hasPrefix("-") }
        guard !paths.isEmpty else {
            writeToStandardError("""
                This build has no libFuzzer (build with -sanitize=fuzzer to fuzz).
                usage: \(CommandLine.arguments.first ?? "fuzzer") FILE... (runs each input once)

                """)
            return 2
        }
        for path in paths {
            guard var bytes = contents(ofFile: path) else {
                writeToStandardError("cannot read \(path)\n")
                return 2
            }
            let count = bytes.count
            // Keep one extra byte so the pointer is valid even for an empty input.
            bytes.append(0)
            _ = bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return CInt(0) }
                return testOneInput(base, count)
            }
        }
        writeToStandardError("ran \(paths.count) input(s) without a failure\n")
        return 0
    }

    /// The bytes of the file at `path`, or `nil` when it cannot be read.
    private static func contents(ofFile path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read = chunk.withUnsafeMutableBytes { buffer in
                fread(buffer.baseAddress, 1, buffer.count, file)
            }
            bytes.append(contentsOf: chunk[..<read])
            if read < chunk.count {
                break
            }
        }
        return ferror(file) == 0 ? bytes : nil
    }

    private static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            _ = write(2, base, buffer.count)
        }
    }
}
