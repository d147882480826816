import Testing

@testable import RpcWire

@Suite("Cap'n Web direct reader")
struct CapnWebFastReaderTests {
    let codec = CapnWebCodec()

    /// What the direct reader makes of `bytes`.
    private func direct(_ bytes: [UInt8], maxDepth: Int = 256) -> CapnWebMessage? {
        bytes.withUnsafeBytes { CapnWebFastReader.message(in: $0, maxDepth: maxDepth) }
    }

    /// What the JSON tree makes of `bytes`, or `nil` when it rejects them.
    private func throughTree(_ bytes: [UInt8], codec: CapnWebCodec? = nil) -> CapnWebMessage? {
        let codec = codec ?? self.codec
        guard let value = try? codec.parser.parse(bytes) else { return nil }
        return try? codec.decode(value)
    }

    @Test("A call's messages are read without the JSON tree")
    func commonMessagesAreReadDirectly() throws {
        let messages = [
            #"["push",["pipeline",0,["square"],["abc"]]]"#,
            #"["pull",1]"#,
            #"["resolve",1,"a string of more than fifteen bytes"]"#,
            #"["release",1,1]"#,
            #"["resolve",3,{"score":98.5,"tiny":1e-7,"huge":1.5e300,"long":0.1234567890123456789,"list":[[0.1,2.5E+3,-7]]}]"#,
            #"["push",["import",-2,["items",3],[true,false,null,["date",5],["undefined"]]]]"#,
            #"["reject",2,["error","Error","boom"]]"#,
        ]
        for text in messages.dropLast() {
            let bytes = Array(text.utf8)
            let read = try #require(direct(bytes), "\(text)")
            #expect(read == throughTree(bytes))
        }
        // A form outside the reader's set goes through the tree, and the codec still decodes it.
        let rejection = Array(messages[messages.count - 1].utf8)
        #expect(direct(rejection) == nil)
        #expect(try codec.decode(rejection) == throughTree(rejection))
    }

    @Test("Every transcript message reads directly as the tree decodes it, or is left to the tree")
    func transcriptMatchesTheTree() throws {
        let lines = try CapnWebTranscriptLine.all()
        var readDirectly = 0
        for line in lines {
            let bytes = line.bytes
            guard let read = direct(bytes) else { continue }
            readDirectly += 1
            #expect(read == throughTree(bytes), "\(line.testDescription)")
        }
        // Most of the transcript is in the reader's set.
        #expect(readDirectly * 2 > lines.count)
    }

    @Test(
        "Forms outside the reader's set are left to the tree",
        arguments: [
            #"["push",["bigint","12"]]"#,
            #"["resolve",1,"esc\"aped"]"#,
            #"["resolve",1,{"a":1,"a":2}]"#,
            #"["resolve",1,-0]"#,
            #"["pull",1.0]"#,
            #"["resolve",1,12345678901234567890]"#,
            #"["resolve",1,["bytes","AAE="]]"#,
            #"["push",["remap",0,[],[],[]]]"#,
        ]
    )
    func unknownFormsGoThroughTheTree(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(direct(bytes) == nil)
        #expect(try codec.decode(bytes) == throughTree(bytes))
    }

    @Test("Every tag is recognised by its spelling and near misses are not tags")
    func tagSpellings() {
        let spellings: [CapnWebFastReader.Tag: String] = [
            .push: "push", .pull: "pull", .resolve: "resolve", .reject: "reject", .release: "release",
            .abort: "abort", .stream: "stream", .pipe: "pipe", .pipeline: "pipeline", .import: "import",
            .export: "export", .promise: "promise", .date: "date", .undefined: "undefined", .inf: "inf",
            .negativeInf: "-inf", .nan: "nan",
        ]
        #expect(spellings.count == CapnWebFastReader.Tag.allCases.count)
        func tag(_ text: String) -> CapnWebFastReader.Tag? {
            Array(text.utf8).withUnsafeBufferPointer { CapnWebFastReader.tag(spelledBy: $0) }
        }
        for (expected, spelling) in spellings {
            #expect(tag(spelling) == expected, "\(spelling)")
            #expect(tag(String(spelling.dropLast())) == nil, "\(spelling) without its last letter")
            #expect(tag(spelling + "s") == nil, "\(spelling) with a letter more")
            #expect(tag(String(spelling.dropLast()) + "x") == nil, "\(spelling) with its last letter changed")
        }
        #expect(tag("") == nil)
        #expect(tag("undefinex") == nil)
    }

    @Test("Nesting near the depth limit is left to the tree, which enforces the limit")
    func depthLimit() throws {
        let shallow = CapnWebCodec(configuration: CapnWebCodec.Configuration(maxDepth: 4))
        let nested = Array(#"["resolve",1,[[[[1]]]]]"#.utf8)
        #expect(direct(nested, maxDepth: 4) == nil)
        #expect(throws: WireError.self) { try shallow.decode(nested) }
        let deep = Array((#"["resolve",1,"# + String(repeating: "[[", count: 40) + "1" + String(repeating: "]]", count: 40) + "]").utf8)
        #expect(direct(deep) == nil)
        #expect(try codec.decode(deep) == throughTree(deep))
    }

    @Test("Mutated transcript messages are never read differently from the tree")
    func mutationsAgreeWithTheTree() throws {
        let insertions: [UInt8] = Array(#"[]{}",:0-1e.\ ntf"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var generator = SplitMix64(seed: 0x5EED)
        var compared = 0
        for line in try CapnWebTranscriptLine.all() {
            let original = line.bytes
            for _ in 0 ..< 24 {
                var bytes = original
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                let byte = insertions[Int(generator.next() % UInt64(insertions.count))]
                switch generator.next() % 4 {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1 where position < bytes.count: bytes[position] = byte
                case 2: bytes = Array(bytes.prefix(position))
                default: bytes.insert(byte, at: position)
                }
                guard let read = direct(bytes) else { continue }
                compared += 1
                #expect(read == throughTree(bytes), "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(compared > 100)
    }
}
