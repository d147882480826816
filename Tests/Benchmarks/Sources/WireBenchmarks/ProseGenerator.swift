/// Produces long, deterministic strings in several scripts for the 1 MiB benchmark document:
/// ASCII prose, accented Latin, CJK and Hangul, emoji (including multi-scalar sequences), with
/// quotes, backslashes, slashes, tabs and line breaks mixed in so that the JSON text needs
/// escapes.
struct ProseGenerator {
    /// The writing system a passage mostly uses.
    enum Script: CaseIterable {
        case ascii
        case latin
        case cjk
        case mixed
    }

    private static let asciiWords = [
        "the", "wire", "layer", "frames", "every", "message", "as", "compact", "text", "and", "reads",
        "it", "back", "without", "copying", "a", "peer", "may", "pipeline", "calls", "before",
        "results", "arrive", "so", "latency", "stays", "low", "even", "when", "the", "network",
        "is", "slow", "numbers", "keep", "their", "exact", "value", "strings", "keep", "their",
        "bytes", "objects", "keep", "their", "order",
    ]
    private static let latinWords = [
        "café", "crème", "brûlée", "naïve", "façade", "Ærøskøbing", "Łódź", "Ñandú", "Straße",
        "œuvre", "São", "Paulo", "Dvořák", "smörgåsbord", "jalapeño", "Kraków", "Zürich", "señor",
        "déjà", "vu", "Þórsmörk", "İstanbul", "Ålesund", "garçon", "élève", "über", "año",
    ]
    private static let cjkWords = [
        "東京都", "渋谷区", "中文字符", "测试数据", "日本語の文章", "한국어", "텍스트", "漢字",
        "ひらがな", "カタカナ", "北京", "上海", "大阪", "서울", "부산", "電子メール", "通信",
        "协议", "消息", "数据库",
    ]
    private static let emoji = ["🚀", "✨", "🎉", "👩‍💻", "🇫🇷", "😀", "🦊", "🌍", "👍🏽", "🧪"]
    private static let specials = [
        "\"quoted\"", #"C:\data\wire"#, "\n", "\n\n", "\t", "https://example.org/a/b?c=d",
        "a/b/c", "“curly”", "«guillemets»", "—", "…", "©", "€42",
    ]

    private var generator: SplitMix64

    /// Creates a generator whose output is fixed by `seed`.
    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    /// A passage of about `length` UTF-8 bytes, mostly in `script`.
    mutating func passage(_ script: Script, length: Int) -> String {
        var text = ""
        var words = 0
        while text.utf8.count < length {
            if words > 0 {
                text += " "
            }
            text += nextWord(script)
            words += 1
            if words.isMultiple(of: 13) {
                text += generator.pick(Self.specials)
            }
            if words.isMultiple(of: 29) {
                text += generator.pick(Self.emoji)
            }
        }
        return text
    }

    /// A short title of a few words.
    mutating func title(_ script: Script) -> String {
        (0..<generator.within(2...5)).map { _ in nextWord(script) }.joined(separator: " ")
    }

    private mutating func nextWord(_ script: Script) -> String {
        switch script {
        case .ascii:
            return generator.oneIn(25) ? generator.pick(Self.latinWords) : generator.pick(Self.asciiWords)
        case .latin:
            return generator.oneIn(3) ? generator.pick(Self.latinWords) : generator.pick(Self.asciiWords)
        case .cjk:
            return generator.oneIn(6) ? generator.pick(Self.asciiWords) : generator.pick(Self.cjkWords)
        case .mixed:
            switch generator.below(3) {
            case 0: return generator.pick(Self.asciiWords)
            case 1: return generator.pick(Self.latinWords)
            default: return generator.pick(Self.cjkWords)
            }
        }
    }
}
