/// Builds the three benchmark inputs, deterministically and without files: a Cap'n Web push
/// message of about 150 bytes, a 64 KiB array of records, and a 1 MiB document of long
/// multilingual strings with escapes.
enum InputCatalog {
    /// Every input, smallest first.
    static func all() -> [BenchmarkInput] {
        [pushMessage(), records(), document()]
    }

    /// The Cap'n Web push message, decoded through a type with hand-written unkeyed coding.
    static func pushMessage() -> BenchmarkInput {
        let message = PushMessage.sample
        var builder = JSONTextBuilder()
        message.write(to: &builder)
        return BenchmarkInput(name: "push-message", bytes: builder.bytes, expected: message)
    }

    /// An array of records of about `targetSize` bytes.
    static func records(targetSize: Int = 64 * 1024) -> BenchmarkInput {
        var generator = SplitMix64(seed: 0x5157_4952_4531)
        var records: [UserRecord] = []
        var builder = JSONTextBuilder(reservingCapacity: targetSize + 512)
        builder.beginArray()
        while builder.bytes.count < targetSize - 120 {
            let record = UserRecord.generate(index: records.count, using: &generator)
            record.write(to: &builder)
            records.append(record)
        }
        builder.endArray()
        return BenchmarkInput(name: "records-64k", bytes: builder.bytes, expected: records)
    }

    /// A document of about `targetSize` bytes, most of it long strings in several scripts;
    /// every seventh non-ASCII character and every `/` is written as an escape.
    static func document(targetSize: Int = 1024 * 1024) -> BenchmarkInput {
        let unicodeEscapeInterval = 7
        var generator = SplitMix64(seed: 0x444F_4355_4D45)
        var prose = ProseGenerator(seed: 0x5052_4F53_45)
        var sections: [ArticleSection] = []
        var estimatedSize = 80
        while estimatedSize < targetSize - 2_000 {
            let section = ArticleSection.generate(index: sections.count, prose: &prose, generator: &generator)
            var scratch = JSONTextBuilder()
            scratch.unicodeEscapeInterval = unicodeEscapeInterval
            scratch.escapesSolidus = true
            section.write(to: &scratch)
            estimatedSize += scratch.bytes.count + 1
            sections.append(section)
        }
        let article = Article(
            title: "Wire layer benchmark document — 試験文書 🚀",
            revision: 42,
            published: true,
            sections: sections)
        var builder = JSONTextBuilder(reservingCapacity: targetSize + 64 * 1024)
        builder.unicodeEscapeInterval = unicodeEscapeInterval
        builder.escapesSolidus = true
        article.write(to: &builder)
        return BenchmarkInput(name: "document-1m", bytes: builder.bytes, expected: article)
    }
}
