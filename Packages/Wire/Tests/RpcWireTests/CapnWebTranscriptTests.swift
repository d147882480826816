import RpcWire
import Testing

/// One message line of the reference transcript.
struct CapnWebTranscriptLine: Sendable, CustomTestStringConvertible {
    /// The one-based line number in the transcript file.
    var number: Int
    /// The message text, exactly as sent.
    var text: String

    var testDescription: String { "line \(number): \(text)" }

    /// The UTF-8 of the message text.
    var bytes: [UInt8] { Array(text.utf8) }

    /// Every message of the transcript: WebSocket frames (`[ws#N] <- MSG`, `[ws#N] -> MSG`) and
    /// the lines of the HTTP batch request and response bodies.
    static func all() throws -> [CapnWebTranscriptLine] {
        let file = try SharedFixtures.bytes("conformance/capnweb/reference-wire-transcript.log")
        return extract(from: String(decoding: file, as: UTF8.self))
    }

    /// The transcript messages, or none when the file cannot be read (the count test then fails).
    static let loaded: [CapnWebTranscriptLine] = (try? all()) ?? []

    static func extract(from transcript: String) -> [CapnWebTranscriptLine] {
        var lines: [CapnWebTranscriptLine] = []
        for (index, line) in transcript.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("[\"") {
                // A line of a batch body.
                lines.append(CapnWebTranscriptLine(number: index + 1, text: String(line)))
            } else if line.hasPrefix("[ws#") {
                for arrow in ["] <- ", "] -> "] {
                    if let range = line.firstRange(of: arrow) {
                        lines.append(
                            CapnWebTranscriptLine(number: index + 1, text: String(line[range.upperBound...])))
                        break
                    }
                }
            }
        }
        return lines
    }

    /// The first transcript message containing `fragment`.
    static func first(containing fragment: String) throws -> CapnWebTranscriptLine {
        try #require(try all().first { $0.text.contains(fragment) })
    }
}

@Suite("Cap'n Web reference transcript")
struct CapnWebTranscriptTests {
    let codec = CapnWebCodec()

    @Test("the transcript yields every WebSocket frame and batch body line, more than 300 messages")
    func extractsAllMessages() throws {
        let lines = try CapnWebTranscriptLine.all()
        #expect(lines.count > 300)
        #expect(lines.count == CapnWebTranscriptLine.loaded.count)
        #expect(lines.allSatisfy { $0.text.hasPrefix("[\"") && $0.text.hasSuffix("]") })
        #expect(lines.contains { $0.text == #"["pull",7]"# })
        #expect(lines.contains { $0.text == #"["resolve",-5,103]"# })
    }

    @Test("decoding a transcript message and encoding it again gives the same bytes", arguments: CapnWebTranscriptLine.loaded)
    func roundTripsByteForByte(line: CapnWebTranscriptLine) throws {
        let message = try codec.decode(line.bytes)
        let encoded = try codec.encode(message)
        #expect(String(decoding: encoded, as: UTF8.self) == line.text)

        // The JSON-value paths agree with the byte paths.
        let parsed = try JSONParser().parse(line.bytes)
        #expect(try codec.decode(parsed) == message)
        #expect(try codec.encodeToJSON(message) == parsed)
    }

    @Test("the remap line decodes to its captures and instructions")
    func remapLine() throws {
        let line = try CapnWebTranscriptLine.first(containing: #"["remap",18,"#)
        let message = try codec.decode(line.bytes)
        #expect(
            message
                == .push(
                    .remap(
                        18, path: [], captures: [.import(0)],
                        instructions: [
                            .pipeline(-1, path: ["square"], arguments: [.pipeline(0)]),
                            .pipeline(1),
                        ])))
        #expect(message.description == #"push remap(18, [], [import(0)], [pipeline(-1, ["square"], [pipeline(0)]), pipeline(1)])"#)
    }

    @Test("the client-capture remap line decodes its export capture")
    func remapWithExportCapture() throws {
        let line = try CapnWebTranscriptLine.first(containing: #"[["export",-2]]"#)
        let message = try codec.decode(line.bytes)
        guard case .push(.remap(11, let path, let captures, let instructions)) = message else {
            Issue.record("unexpected message \(message)")
            return
        }
        #expect(path.isEmpty)
        #expect(captures == [.export(-2)])
        #expect(instructions == [.pipeline(-1, path: [], arguments: [.pipeline(0)]), .pipeline(1)])
    }

    @Test("the echoed special values decode to typed error, bigint, bytes, date, url and headers")
    func echoedSpecialValues() throws {
        let line = try CapnWebTranscriptLine.first(containing: #"["resolve",4,{"t":["date",null]"#)
        let message = try codec.decode(line.bytes)
        guard case .resolve(4, .object(let members)) = message else {
            Issue.record("unexpected message \(message)")
            return
        }
        #expect(members.map(\.key) == ["t", "e", "big", "u16", "ab", "url", "h"])
        #expect(members[0].value == .date(nil))
        #expect(
            members[1].value
                == .error(name: "RangeError", message: "r", stack: nil, properties: [CapnWebMember("code", 7)]))
        #expect(members[2].value == .bigint("-5"))
        #expect(members[3].value == .bytes([1, 0, 2, 1], type: .uint16Array))
        #expect(members[3].value.description == "bytes(4 B, Uint16Array)")
        #expect(members[4].value == .bytes([0xFF], type: .arrayBuffer))
        #expect(members[5].value == .url("https://x.test/a?b=1"))
        #expect(members[6].value == .headers([CapnWebHeader("x-a", "1")]))
    }

    @Test("the escaped array of special values decodes element by element")
    func escapedSpecialValues() throws {
        let line = try CapnWebTranscriptLine.first(containing: #"["resolve",4,[[["date",5]"#)
        let message = try codec.decode(line.bytes)
        #expect(
            message
                == .resolve(
                    exportID: 4,
                    value: [
                        .date(5), .bigint("12345678901234567890"), .bytes([1, 2, 3]), .undefined,
                        .infinity, .negativeInfinity,
                    ]))
    }

    @Test("stream, pipe and readable lines decode to their messages")
    func streamLines() throws {
        let lines = try CapnWebTranscriptLine.all()
        let messages = try lines.map { line throws(WireError) in try codec.decode(line.bytes) }
        #expect(messages.contains(.pipe))
        #expect(messages.contains(.resolve(exportID: 20, value: .readable(7))))
        #expect(messages.contains(.stream(.pipeline(7, path: ["write"], arguments: [0]))))
        #expect(messages.contains(.push(.pipeline(0, path: ["writeTo"], arguments: [.writable(-3), 2]))))
        #expect(messages.contains(.reject(exportID: 15, value: .error(name: "Error", message: "boom"))))
        #expect(messages.contains(.release(importID: 1, refcount: 1)))
        #expect(messages.contains(.push(.pipeline(7, path: []))))
    }
}
